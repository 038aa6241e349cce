// A fixture plugin for core tests, which may not import plugins/: scopes like the standard plugins' ones, and tenants.

import {
  definePlugin,
  type PluginContext,
  type PluginDefinition,
  type ScopeDefinition,
} from '../plugin/define-plugin.ts'
import { brandDirectoryService, tenantDirectoryService } from '../tenancy/tenant-view.ts'
import { registerTenant } from '../tenancy/tenants.ts'

/** The first fixture brand, the default one when {@link twoTenants} are served. */
export const brandA = 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
/** The second fixture brand. */
export const brandB = 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9SBB'
/** The customer of {@link brandA} in {@link twoTenants}. */
export const customerA = 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
/** The customer of {@link brandB} in {@link twoTenants}. */
export const customerB = 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SBB'
/** Two brands with one customer each, as `customerId → brandId`. */
export const twoTenants: Readonly<Record<string, string>> = { [customerA]: brandA, [customerB]: brandB }

const scopeCatalogue = {
  'gadget:read': { description: 'Read gadgets', roles: ['owner', 'admin', 'developer'] },
  'gadget:create': { description: 'Create gadgets', roles: ['owner', 'admin', 'developer'] },
  'customer:read': { description: 'Read customers', roles: ['owner', 'admin', 'billing'] },
  'customer:manage': { description: 'Change customers' },
  'billing:manage': { description: 'Manage billing', roles: ['owner', 'billing'] },
  'widget:admin': { description: 'Administer widgets (staff)', staff: true },
  'widget:create': { description: 'Create widgets (platform staff)', staff: 'platform' },
} as const satisfies Record<string, Omit<ScopeDefinition, 'name'>>

/** A scope the fixture can declare: customer scopes held by the roles the standard ones are, and staff-only `widget:*`. */
export type FixtureScope = keyof typeof scopeCatalogue

/** What {@link fixturePlugin} declares. */
export interface FixturePluginOptions
  extends Partial<Omit<PluginDefinition, 'name' | 'version' | 'description' | 'scopes' | 'setup'>> {
  /** The plugin's name; `tenancy-fixture` unless told. */
  readonly name?: string
  /** What it stands in for in this test file. */
  readonly description: string
  /** The scopes it declares, in this order, each with the fixture's description and staff flag. */
  readonly scopes?: readonly FixtureScope[]
  /**
   * Customers and their brands (`customerId → brandId`, e.g. {@link twoTenants}): registered at setup and served
   * through the kernel's tenant and brand directories, the first brand as the default one, standing in for the
   * brands and customers plugins. Without it, neither directory is filled.
   */
  readonly tenants?: Readonly<Record<string, string>>
}

/** A plugin, version 1.0.0, declaring the scopes and routes given, and filling the directories with `tenants`. */
export function fixturePlugin(options: FixturePluginOptions): PluginDefinition {
  const { tenants, name, description, scopes, ...declared } = options
  let setup: PluginDefinition['setup']
  if (tenants !== undefined) {
    const brands = Object.values(tenants)
    const defaultBrand = brands[0]
    if (defaultBrand === undefined) throw new Error('fixturePlugin: tenants names no customer')
    setup = async (context: PluginContext) => {
      for (const [customerId, brandId] of Object.entries(tenants))
        await registerTenant(context.db, customerId, brandId)
      context.provide(tenantDirectoryService, {
        findCustomer: async (id) => (tenants[id] ? { id, name: id } : null),
      })
      context.provide(brandDirectoryService, {
        findBrand: async (id) => (brands.includes(id) ? { id } : null),
        defaultBrandId: async () => defaultBrand,
      })
    }
  }
  return definePlugin({
    ...declared,
    name: name ?? 'tenancy-fixture',
    version: '1.0.0',
    description,
    scopes: scopes?.map((scope) => ({ name: scope, ...scopeCatalogue[scope] })),
    setup,
  })
}
