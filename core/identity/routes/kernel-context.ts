// What the kernel's own identity routes need of the panel.

import type { LoginThrottle } from '../../auth/login-throttle.ts'
import type { PanelLimits } from '../../panel/limits.ts'
import type { Store } from '../../store/store.ts'
import type { BrandDirectory, TenantDirectory } from '../../tenancy/tenant-view.ts'

/** The panel as the identity routes see it. */
export interface KernelRouteContext {
  readonly store: Store
  readonly secret: string
  readonly limits: PanelLimits
  /** Every scope the panel declares. */
  readonly scopes: ReadonlySet<string>
  readonly throttle: LoginThrottle
  /** The customers plugin's directory, when one is mounted. */
  tenantDirectory(): TenantDirectory | null
  /** The brands plugin's directory, when one is mounted. */
  brandDirectory(): BrandDirectory | null
}
