// The customers plugin's public contract: what other plugins and examples may import. Never import its internals.

import {
  type AuditActor,
  type Db,
  defineExtensionPoint,
  defineService,
  type Static,
  TeamRoleSchema,
  type Trx,
  t,
} from '../../core/index.ts'

/** A customer as the API returns it. */
export const Customer = t.Object(
  {
    id: t.String({ description: 'Identifier, `cus_…`.', examples: ['cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    name: t.String({ description: 'Display name of the customer (a person or a company).' }),
    email: t.Union([t.String({ format: 'email' }), t.Null()], { description: 'Contact e-mail, if given.' }),
    brandId: t.String({ description: 'The brand the customer belongs to, `brd_…`; fixed at creation.' }),
    status: t.Literal('active', {
      description:
        'Lifecycle state; `active`. Billing suspends a customer’s resources (its sites), not the customer record: see `quota.source` in capabilities and usage.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Customer' },
)
export type Customer = Static<typeof Customer>

/** A member of a customer's team. */
export const Member = t.Object(
  {
    userId: t.String({ description: 'The user, `usr_…`.' }),
    email: t.String({ format: 'email' }),
    role: TeamRoleSchema,
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Member' },
)
export type Member = Static<typeof Member>

/** Looks customers up for other plugins (sites checks an owner exists before creating). */
export interface CustomerDirectory {
  /** The customer with this id, or null when there is none. Callers apply tenancy themselves. */
  find(id: string): Promise<Customer | null>
}

/** The customers plugin's directory service. */
export const customerDirectory = defineService<CustomerDirectory>({
  id: 'customers.directory',
  owner: 'customers',
  description: 'Finds customers by id.',
})

/** Scope names the plugin declares. */
export const customerScopes = {
  read: 'customer:read',
  manage: 'customer:manage',
  create: 'customer:create',
  membersManage: 'members:manage',
} as const

/** Who suspends or restores a customer's resources, and why: recorded in the audit entries of each resource. */
export interface SuspensionRequest {
  readonly customerId: string
  /** Why, in words: `subscription sub_… suspended: invoice unpaid`. */
  readonly reason: string
  /** Whose request it is (the billing system's token, or the installation for scheduled work). */
  readonly actor: AuditActor
}

/**
 * A kind of resource customers own that is suspended with them: sites fill it, and so will databases. Each
 * operation runs in the caller's transaction and moves resources through their own lifecycle (state, job, audit
 * entry, event), so the suspension and everything it touches commit together.
 */
export interface SuspensionHandler {
  /** The kind of resource, unique: `sites`. */
  readonly name: string
  /**
   * Suspends every running resource of the customer; answers the ids it suspended. Resources already suspended
   * (by staff, by hand) are not among them, so restoring later leaves them suspended.
   */
  suspend(trx: Trx, request: SuspensionRequest): Promise<readonly string[]>
  /** Restores those of `ids` that are still suspended (gone ones are skipped); answers the ids it restored. */
  restore(
    trx: Trx,
    request: SuspensionRequest & { readonly ids: readonly string[] },
  ): Promise<readonly string[]>
  /** Starts removing every resource of the customer (what cancellation ends with); answers the ids. */
  remove(trx: Trx, request: SuspensionRequest): Promise<readonly string[]>
}

/** The kinds of resource suspended with their customer; plugins that own customer resources add theirs in setup. */
export const suspensionHandlers = defineExtensionPoint<SuspensionHandler>({
  id: 'customers.suspensionHandlers',
  owner: 'customers',
  description: 'Kinds of customer resource that are suspended, restored and removed with their customer.',
  keyOf: (handler) => handler.name,
})

/** One resource a hold suspended: the handler's name and the resource id. */
export interface HeldResource {
  readonly kind: string
  readonly id: string
}

/** What a holder (billing) asks: the request, and who it is, so two holders never release each other's holds. */
export interface HoldRequest extends SuspensionRequest {
  /** `billing`. */
  readonly holder: string
}

/**
 * Suspends and restores all of a customer's resources on behalf of a holder, remembering what the hold suspended.
 * Every method runs in the caller's transaction and is idempotent.
 */
export interface CustomerSuspensions {
  /**
   * Puts the customer on hold: suspends its running resources through every handler and remembers them. A customer
   * already on hold for `holder` is left as it is. Answers what this call suspended.
   */
  hold(trx: Trx, request: HoldRequest): Promise<readonly HeldResource[]>
  /** Ends the hold: restores what it suspended that is still suspended. Without a hold, nothing. */
  release(trx: Trx, request: HoldRequest): Promise<readonly HeldResource[]>
  /** Whether the customer is on hold for `holder`. */
  isHeld(db: Db, customerId: string, holder: string): Promise<boolean>
  /** Starts removing every resource of the customer through every handler, and ends every hold on it. */
  remove(trx: Trx, request: SuspensionRequest): Promise<readonly HeldResource[]>
}

/** The customers plugin's suspension service (billing suspends through it, never through sites). */
export const customerSuspensions = defineService<CustomerSuspensions>({
  id: 'customers.suspensions',
  owner: 'customers',
  description: 'Suspends, restores and removes all of a customer’s resources on behalf of billing.',
})
