// The customers plugin's public contract: what other plugins and examples may import. Never import its internals.

import {
  type AuditActor,
  type Db,
  defineDependents,
  defineExtensionPoint,
  defineService,
  JobAttemptFailure,
  type JobRequest,
  type JobRun,
  jobStanding,
  kernelProblems,
  Problem,
  type Static,
  TeamRoleSchema,
  type TenantView,
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
    status: t.Union([t.Literal('active'), t.Literal('deleting')], {
      description:
        'Lifecycle state: `active`, or `deleting` once `DELETE /customers/{id}` started its deletion job (`jobId`); the customer is then refused new resources (409 `customer_deleting`) and is gone (404) when the job ends. Billing suspends a customer’s resources (its sites), not the customer record: see `quota.source` in capabilities and usage.',
    }),
    jobId: t.Union([t.String(), t.Null()], {
      description:
        'The job deleting the customer (`customer.delete`), `job_…`, while it is `deleting`; null otherwise.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Customer' },
)
export type Customer = Static<typeof Customer>

/** What `customer.deleted` carries: the customer as it was. */
export const DeletedCustomer = t.Object(
  {
    id: t.String({ description: 'The customer, `cus_…`.' }),
    name: t.String(),
    email: t.Union([t.String(), t.Null()]),
    brandId: t.String(),
  },
  { $id: 'DeletedCustomer' },
)
export type DeletedCustomer = Static<typeof DeletedCustomer>

/**
 * The refusal of new records for a customer being deleted: list it in the `problems` of a route that creates
 * records for a customer without declaring it (`change.customer` has the kernel refuse it), and call
 * {@link assertCustomerOpen} on the customer the directory found.
 */
export const openCustomerProblems = [kernelProblems.customer_deleting] as const

/** Refuses new records for a customer being deleted: 409 `customer_deleting`. */
export function assertCustomerOpen(customer: Pick<Customer, 'status'>): void {
  if (customer.status === 'deleting') throw new Problem(kernelProblems.customer_deleting)
}

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
  /**
   * The customer with this id that `view` may see, read through `db` (inside a transaction, its `trx`), or null
   * when there is none or the view does not reach it (the two look the same to the caller).
   */
  find(db: Db, view: TenantView, id: string): Promise<Customer | null>
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
  /** Staff: closing a customer removes everything it owns. */
  delete: 'customer:delete',
  membersManage: 'members:manage',
} as const

/** A customer as the plugins whose records it owns see it in its deletion job. */
export interface CustomerRef {
  readonly id: string
  readonly brandId: string
}

/**
 * What goes with a customer: each plugin that keeps records of customers (sites, databases, certificates,
 * subscriptions…) adds a dependent here in its `setup`, and its `remove` runs in the customer's deletion job
 * (`customer.delete`), plugins set up later first, before the customer itself is forgotten. It removes every record
 * of the customer it keeps, through its own lifecycle (a site's deletion job, a database's), and returns once they
 * are gone; idempotent, since a job that crashed runs every dependent again. Resources declared with their
 * customer and the kernel's deletion (`resourceRoutes`: `owner.customer`, `remove: {}`) need no dependent: the job
 * has the kernel remove them first (`tenancy.removeResources`). While the customer is `deleting`, the kernel
 * refuses declared changes for it and {@link assertCustomerOpen} the others, so none appears behind a dependent's
 * back. Customers are deleted whatever they own, so no dependent keeps one (`blocking` is not asked).
 * @example context.extensionPoint(customerDependents).add({ name: 'notes', remove: (run, customer) => run.transaction((trx) => removeNotesOf(trx, customer.id)) })
 */
export const customerDependents = defineDependents<CustomerRef>({
  id: 'customers.dependents',
  owner: 'customers',
  description: 'Records of other plugins owned by a customer, removed in its deletion job.',
})

/** Who suspends or restores a customer's resources, and why: recorded in the audit entries of each resource. */
export interface SuspensionRequest {
  readonly customerId: string
  /** Why, in words: `subscription sub_… suspended: invoice unpaid`. */
  readonly reason: string
  /** Whose request it is (the billing system's token, or the installation for scheduled work). */
  readonly actor: AuditActor
  /**
   * Starts a job on behalf of `actor`: a route handler's `enqueueJob`, so the jobs a hold starts (`site.suspend`)
   * record the requester, as jobs a request starts do. Default: the handler's plugin context (the installation).
   */
  readonly enqueueJob?: (trx: Trx, job: JobRequest) => Promise<string>
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
   * Suspends every running resource of the customer; answers every resource the hold now covers: those it
   * suspended, those already suspended (by staff or another hold: no change, but they are covered too, so they
   * stay suspended while the hold lasts) and those still being set up, which must come up suspended (ask
   * {@link CustomerSuspensions.holdersOf} when they are ready).
   */
  suspend(trx: Trx, request: SuspensionRequest): Promise<readonly string[]>
  /**
   * Restores those of `ids` that are still suspended and that nothing else keeps suspended (a staff suspension);
   * gone ones are skipped. The service passes only ids no other hold covers. Answers the ids it restored.
   */
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

/** One resource a hold covers: the handler's name and the resource id. */
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
 * Suspends and restores all of a customer's resources on behalf of holders, remembering what each hold covers.
 * A resource is suspended while any hold (or its own plugin's reason, such as a staff suspension) keeps it so.
 * Every method runs in the caller's transaction and is idempotent.
 */
export interface CustomerSuspensions {
  /**
   * Puts the customer on hold for `holder`: suspends its running resources through every handler and remembers
   * every resource the hold covers. A customer already on hold for `holder` is left as it is. Answers what this
   * call covered.
   */
  hold(trx: Trx, request: HoldRequest): Promise<readonly HeldResource[]>
  /**
   * Ends `holder`'s hold: restores what it covered that no other hold covers and is still suspended. Without a
   * hold, nothing. Answers what was restored.
   */
  release(trx: Trx, request: HoldRequest): Promise<readonly HeldResource[]>
  /**
   * The holders whose holds cover a resource (none: an empty list). Read through `db`: inside a transaction, its
   * `trx`. Plugins ask it before lifting a suspension of their own (409 while held), and when a resource that was
   * being set up is ready (it comes up suspended while held).
   */
  holdersOf(db: Db, resource: { readonly customerId: string } & HeldResource): Promise<readonly string[]>
  /**
   * Starts removing every resource of the customer through every handler, and ends `holder`'s hold (another
   * holder's hold stays until that holder releases it).
   */
  remove(trx: Trx, request: HoldRequest): Promise<readonly HeldResource[]>
}

/** The customers plugin's suspension service (billing suspends through it, never through sites). */
export const customerSuspensions = defineService<CustomerSuspensions>({
  id: 'customers.suspensions',
  owner: 'customers',
  description: 'Suspends, restores and removes all of a customer’s resources on behalf of billing.',
})

/**
 * Waits, inside a customer's deletion job, until `remaining` (read afresh each time: the job of each record still
 * there, null for one without) answers none: for a dependent whose records go through jobs of their own (a site's
 * deletion). While it waits, the job's step says why their jobs are slow (a server away); once none of them is live
 * (they gave up), or after `timeoutMs` (default 5 minutes; read every `pollMs`, default 25), it ends the attempt with
 * `customer_resources_remain`, and the deletion job tries again later (its dependents start again what was lost).
 * Stops at `run.signal`.
 * @example await untilRemoved(run, 'sites', async () => (await sitesOf(context.db, customer.id)).map((row) => row.job_id))
 */
export async function untilRemoved(
  run: JobRun,
  what: string,
  remaining: () => Promise<readonly (string | null)[]>,
  options: { readonly timeoutMs?: number; readonly pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 300_000)
  let nextLook = Date.now() + 1_000
  for (;;) {
    const jobs = await remaining()
    if (jobs.length === 0) return
    if (Date.now() > deadline)
      throw new JobAttemptFailure(
        `${jobs.length} ${what} of the customer are still being removed`,
        'customer_resources_remain',
      )
    if (Date.now() >= nextLook) {
      nextLook = Date.now() + 1_000
      const looks = await run.transaction((trx) =>
        Promise.all(jobs.map((id) => (id === null ? { live: false, trouble: null } : jobStanding(trx, id)))),
      )
      const trouble = looks.find((look) => look.trouble)?.trouble
      if (looks.every((look) => !look.live))
        throw new JobAttemptFailure(
          `${jobs.length} ${what} of the customer could not be removed yet${trouble ? `: ${trouble.message}` : ''}; trying again`,
          'customer_resources_remain',
        )
      if (trouble) await run.progress(5, `Waiting for ${jobs.length} ${what}: ${trouble.message}`)
    }
    run.signal.throwIfAborted()
    await Bun.sleep(options.pollMs ?? 25)
  }
}
