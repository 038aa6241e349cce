// Closing a customer: `DELETE /customers/{id}` makes it `deleting` with its `customer.delete` job, which has every
// plugin remove what it keeps of the customer (`customers.dependents`), then forgets the customer itself.

import {
  defineRoute,
  type JobDefinition,
  type PluginContext,
  Reply,
  type RouteDefinition,
  removeDependents,
} from '../../core/index.ts'
import { Customer, type CustomerRef, customerDependents, customerScopes } from './contract.ts'
import type { CustomersTable } from './migrations.ts'
import {
  customers,
  deleteCustomerRows,
  findCustomerRow,
  toCustomer,
  updateCustomerDeletion,
} from './repository.ts'

/** The job that removes a customer and everything it owns. */
export const customerDeletionJob = 'customer.delete'

const refOf = (row: CustomersTable): CustomerRef => ({ id: row.id, brandId: row.brand_id })

/** The deletion route. */
export function customerDeletionRoutes(context: PluginContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'DELETE',
      path: '/customers/:id',
      operationId: 'deleteCustomer',
      summary: 'Delete a customer and everything it owns',
      description:
        'Staff only. The customer becomes `deleting` and its `customer.delete` job (`jobId`) removes everything it owns: its sites from their nodes (a provisioning under way is cancelled), databases and database users, certificates, SFTP accounts, shell sessions, subscriptions (cancelled, `subscription.cancelled`), its team and the API tokens limited to it (revoked); then the customer is gone (404) and `customer.deleted` is sent. The audit log keeps its entries. Meanwhile nothing new is made for it (409 `customer_deleting`). Answers 202 with the customer; a customer already `deleting` answers the same, with the deletion under way.',
      scope: customerScopes.delete,
      params: { id: 'cus' },
      responses: { 202: { description: 'The customer, now `deleting`, with `jobId`.', schema: Customer } },
      async handler(input) {
        const customer = await context.transaction(async (trx) => {
          const row = await customers.find(trx, input.view, input.params.id, { lock: true })
          // Asked again (a client retrying): the deletion under way is the answer.
          if (row.status === 'deleting') return toCustomer(row)
          const jobId = await input.enqueueJob(trx, {
            kind: customerDeletionJob,
            customerId: row.id,
            subject: { type: 'customer', id: row.id },
          })
          const moved = await updateCustomerDeletion(trx, row.id, jobId)
          // The kernel refuses every declared change for it from now on (409 `customer_deleting`).
          await context.tenancy.close(trx, row.id)
          await input.audit(trx, {
            action: 'customer.delete',
            subject: { type: 'customer', id: row.id },
            customerId: row.id,
            details: { name: row.name, jobId },
          })
          await input.emit(trx, { kind: 'customer.updated', customerId: row.id, data: toCustomer(moved) })
          return toCustomer(moved)
        })
        return new Reply(202, customer)
      },
    }),
  ]
}

/** The deletion job. */
export function customerDeletionJobs(context: PluginContext): JobDefinition[] {
  return [
    {
      kind: customerDeletionJob,
      description:
        'Removes everything a `deleting` customer owns, plugin by plugin (`customers.dependents`: sites and their node resources, databases, certificates, subscriptions…), then its team, the tokens limited to it and the customer itself (`customer.deleted`). Run again after a crash, it carries on where it stopped.',
      maxAttempts: 20,
      timeoutMs: 30 * 60_000,
      // It waits on other jobs (sites' deletions): in a pool of its own, it never holds a worker they need.
      lane: { name: 'customer-deletions', concurrency: 2 },
      priority: 'urgent',
      async run(job) {
        const row = await findCustomerRow(context.db, job.subject.id)
        if (!row) return { alreadyGone: true }
        if (row.status !== 'deleting') return { skipped: true }
        await job.progress(5, 'Removing what the customer owns')
        // The resources plugins declared with their customer first (the kernel removes them as their DELETE
        // does), then what each plugin removes itself.
        await context.tenancy.removeResources(job, row.id)
        await removeDependents(context.extensionPoint(customerDependents), job, refOf(row))
        await job.progress(90, 'Forgetting the customer')
        const forgotten = await job.transaction(async (trx) => {
          const current = await findCustomerRow(trx, row.id)
          if (!current) return null
          // The audit entry and the event first: they read the customer's brand, which the tenancy then forgets.
          await job.audit(trx, {
            action: 'customer.remove',
            subject: { type: 'customer', id: row.id },
            customerId: row.id,
            details: { name: row.name },
          })
          await job.emit(trx, {
            kind: 'customer.deleted',
            customerId: row.id,
            data: { id: row.id, name: row.name, email: row.email, brandId: row.brand_id },
          })
          await context.usage.adjust(trx, row.id, 'customers', -1)
          await deleteCustomerRows(trx, row.id)
          return context.tenancy.forget(trx, row.id)
        })
        return forgotten
          ? { members: forgotten.members, tokensRevoked: forgotten.tokens }
          : { alreadyGone: true }
      },
    },
  ]
}
