// The brands plugin: white-label resellers. Fills the kernel's brand directory, so brand staff can exist.

import { brandDirectoryService, definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { brandHostnames, brandScopes } from './contract.ts'
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
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.provide(brandDirectoryService, {
        findBrand: (id) => findBrand(context.db, id),
        defaultBrandId: () => defaultBrandId(context.db),
      })
      context.provide(brandHostnames, { taken: brandsHostnames })
    },
    routes: (context) => [...brandRoutes(), ...brandingRoutes(context)],
  })
