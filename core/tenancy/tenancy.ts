// The tenancy service plugins write through: which brand a customer belongs to, and who is on its team. The kernel
// keeps both, since every caller is made of them; writing them here is what keeps kept callers honest.

import type { TeamRole } from '../auth/roles.ts'
import type { JobRun } from '../jobs/job-definition.ts'
import type { Db } from '../store/store.ts'
import { type ForgottenTenant, forgetTenant } from './forget-tenant.ts'
import {
  addMember,
  brandOfCustomer,
  changeMemberRole,
  closeTenant,
  countOwners,
  findMember,
  type Member,
  membersQuery,
  registerTenant,
  removeMember,
  tenantClosing,
} from './tenants.ts'

export type { ForgottenTenant } from './forget-tenant.ts'
export type { Member } from './tenants.ts'

/** Customers' brands and teams, as plugin contexts hand them out. */
export interface Tenancy {
  /** Records that `customerId` belongs to `brandId`; the customers plugin calls it in the creating transaction. */
  register(db: Db, customerId: string, brandId: string): Promise<void>
  /**
   * Forgets a customer the customers plugin deletes, in its deletion transaction: its team, tokens limited to it
   * (revoked), its place among tenants and its usage counters; answers how many members and tokens that ended.
   * Audit entries stay. Idempotent.
   */
  forget(db: Db, customerId: string): Promise<ForgottenTenant>
  /**
   * Marks a customer whose deletion starts as closing, in the transaction that starts it: from then on every
   * change declaring the customer it is for (`change.customer`, a resource's `owner.customer`) is refused with
   * 409 `customer_deleting`. Idempotent.
   */
  close(db: Db, customerId: string): Promise<void>
  /** Whether the customer's deletion started ({@link Tenancy.close}). */
  closing(db: Db, customerId: string): Promise<boolean>
  /**
   * Removes, inside a customer's deletion job, its records of every resource declared with an owning customer
   * and a removal the kernel does (`resourceRoutes`: `owner.customer`, `remove` without handler), each row as its
   * DELETE removes it (audit entry, event, usage given back); answers how many. Idempotent.
   */
  removeResources(run: JobRun, customerId: string): Promise<number>
  /** The brand a customer belongs to, or null for an unknown customer. */
  brandOf(db: Db, customerId: string): Promise<string | null>
  /** A customer's team. */
  readonly members: {
    /** The team as a query for a list route (`list: { item: Member, key: 'memberships.user_id' }`). */
    list(db: Db, customerId: string): ReturnType<typeof membersQuery>
    /** One member, or null. */
    find(db: Db, customerId: string, userId: string): Promise<Member | null>
    add(db: Db, customerId: string, userId: string, role: TeamRole): Promise<void>
    changeRole(db: Db, customerId: string, userId: string, role: TeamRole): Promise<void>
    remove(db: Db, customerId: string, userId: string): Promise<void>
    /** How many owners the team has (a team keeps at least one). */
    countOwners(db: Db, customerId: string): Promise<number>
  }
}

/** The tenancy service of a panel, but for the removal of declared resources (the panel's routes know them). */
export const tenancy: Omit<Tenancy, 'removeResources'> = {
  register: registerTenant,
  forget: forgetTenant,
  close: closeTenant,
  closing: tenantClosing,
  brandOf: brandOfCustomer,
  members: {
    list: membersQuery,
    find: findMember,
    add: addMember,
    changeRole: changeMemberRole,
    remove: removeMember,
    countOwners,
  },
}
