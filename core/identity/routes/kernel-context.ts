// What the kernel's own identity routes need of the panel.

import type { PanelLimits } from '../../panel/limits.ts'
import type { Dependent } from '../../plugin/dependents.ts'
import type { ExtensionRegistry } from '../../plugin/extension-point.ts'
import type { Store } from '../../store/store.ts'
import type { BrandDirectory, TenantDirectory } from '../../tenancy/tenant-view.ts'
import type { LoginThrottling } from '../shared-login-throttle.ts'
import type { UserRef } from '../user-deletion.ts'

/** The panel as the identity routes see it. */
export interface KernelRouteContext {
  readonly store: Store
  readonly secret: string
  readonly limits: PanelLimits
  /** Every scope the panel declares. */
  readonly scopes: ReadonlySet<string>
  /** Failed logins and password changes, counted across instances on PostgreSQL. */
  readonly throttle: LoginThrottling
  /** The customers plugin's directory, when one is mounted. */
  tenantDirectory(): TenantDirectory | null
  /** The brands plugin's directory, when one is mounted. */
  brandDirectory(): BrandDirectory | null
  /** What keeps a user from being deleted, and what goes with them (`identity.userDependents`). */
  readonly userDependents: ExtensionRegistry<Dependent<UserRef>>
}
