// The brands plugin: white-label resellers. Fills the kernel's brand directory, so brand staff can exist.

import { brandDirectoryService, brandHolders, definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { brandDependents, brandHostnames, brandScopes } from './contract.ts'
import { brandsMigrations } from './migrations.ts'
import { brandsProblems } from './problems.ts'
import { brandsHostnames, defaultBrandId, findBrand } from './repository.ts'
import { brandingRoutes } from './routes/branding.ts'
import { brandRoutes } from './routes/brands.ts'

/** Options of {@link brandsPlugin}; none yet. */
export type BrandsOptions = Record<string, never>

/**
 * Brands: create (platform staff), list, read, change (name, theme, host names); a default brand on a fresh install;
 * the public branding a sign-in page wears.
 */
export const brandsPlugin = (_options: BrandsOptions = {}) =>
  definePlugin({
    name: 'brands',
    version: '0.2.0',
    description: 'Brands: white-label resellers, each with its own staff and customers.',
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      { name: brandScopes.read, description: 'Read brands (staff)', staff: true },
      { name: brandScopes.create, description: 'Create brands (platform staff only)', staff: 'platform' },
      { name: brandScopes.manage, description: 'Change brands (staff; brand staff their own)', staff: true },
    ],
    problems: brandsProblems,
    migrations: brandsMigrations,
    extensionPoints: [brandDependents],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.provide(brandDirectoryService, {
        findBrand: (id, db) => findBrand(db ?? context.db, id),
        defaultBrandId: () => defaultBrandId(context.db),
      })
      context.provide(brandHostnames, { taken: brandsHostnames })
      // The kernel's own records of a brand keep it too: its customers and its staff.
      const holders = (db: Parameters<typeof brandHolders>[0], brand: { id: string }) =>
        brandHolders(db, brand.id)
      context.extensionPoint(brandDependents).add({
        name: 'customers',
        blocking: async (db, brand) => (await holders(db, brand)).customers,
      })
      context.extensionPoint(brandDependents).add({
        name: 'staff',
        blocking: async (db, brand) => (await holders(db, brand)).staff,
      })
    },
    routes: (context) => [
      ...brandRoutes(context.extensionPoint(brandDependents)),
      ...brandingRoutes(context),
    ],
  })
