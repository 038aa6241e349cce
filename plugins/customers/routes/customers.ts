// Customer operations: create (staff), list, read, update. Every read goes through the caller's view.

import {
  adjustUsage,
  brandDirectoryService,
  brandForRecord,
  defineRoute,
  idPattern,
  kernelProblems,
  newId,
  nonBlank,
  nowIso,
  type PluginContext,
  Problem,
  pageOf,
  pageQuery,
  Reply,
  type RouteDefinition,
  registerTenant,
  t,
} from '../../../core/index.ts'
import { Customer, customerScopes } from '../contract.ts'
import { insertCustomer, toCustomer, updateCustomer, visibleCustomers } from '../repository.ts'

const Email = t.String({
  format: 'email',
  maxLength: 254,
  description: 'Contact e-mail (several customers may share one).',
})

const CreateCustomerBody = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: 200,
      description: 'Display name; surrounding spaces are trimmed.',
    }),
    email: t.Optional(Email),
    brandId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description: 'Default: the caller’s brand (brand staff) or the default brand.',
      }),
    ),
  },
  { $id: 'CreateCustomerBody' },
)

const UpdateCustomerBody = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    email: t.Optional(t.Union([Email, t.Null()], { description: 'null removes the contact e-mail.' })),
  },
  { $id: 'UpdateCustomerBody' },
)

const ListCustomersQuery = t.Object({
  ...pageQuery,
  brandId: t.Optional(
    t.String({ maxLength: 64, description: 'Only customers of this brand (narrows, never widens).' }),
  ),
})

/** Path parameters of one customer. */
export const CustomerParams = t.Object({
  id: t.String({ pattern: idPattern('cus'), description: 'Customer id, `cus_…`.' }),
})

/** The customers routes. */
export function customerRoutes(context: PluginContext): RouteDefinition[] {
  const { db, transaction } = context
  const brands = context.use(brandDirectoryService)

  return [
    defineRoute({
      method: 'POST',
      path: '/customers',
      operationId: 'createCustomer',
      idempotent: true,
      summary: 'Create a customer',
      description:
        'Staff only: a customer owns sites, databases and subscriptions, and has a team of members.',
      scope: customerScopes.create,
      staff: true,
      body: CreateCustomerBody,
      responses: {
        201: {
          description: 'The new customer.',
          schema: Customer,
          headers: { Location: 'URL of the customer.' },
        },
      },
      problems: [kernelProblems.unknown_brand],
      async handler({ body, caller, audit, emit }) {
        const name = nonBlank(body.name, 'body.name')
        const email = body.email?.trim().toLowerCase() ?? null
        const brandId = await brandForRecord(caller, body.brandId, () => brands, 'default')
        const now = nowIso()
        const row = {
          id: newId('cus'),
          name,
          email,
          brand_id: brandId,
          status: 'active',
          created_at: now,
          updated_at: now,
        }
        const customer = await transaction(async (trx) => {
          await insertCustomer(trx, row)
          await registerTenant(trx, row.id, brandId)
          await adjustUsage(trx, row.id, 'customers', 1)
          const created = toCustomer(row)
          await audit(trx, {
            action: 'customer.create',
            subject: { type: 'customer', id: row.id },
            customerId: row.id,
            details: { name, email, brandId },
          })
          await emit(trx, { kind: 'customer.created', customerId: row.id, data: created })
          return created
        })
        return Reply.created(customer, `/customers/${customer.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/customers',
      operationId: 'listCustomers',
      summary: 'List customers',
      description: 'Only customers the caller may see, oldest first. `brandId` narrows the list.',
      scope: customerScopes.read,
      query: ListCustomersQuery,
      responses: { 200: { description: 'A page of customers.', schema: pageOf(Customer, 'CustomerPage') } },
      async handler({ query, view, page }) {
        let customers = visibleCustomers(db, view)
        if (query.brandId !== undefined) customers = customers.where('brand_id', '=', query.brandId)
        const { rows, nextCursor } = await page(customers, {
          keyColumn: 'customers.id',
          keyOf: (row) => row.id,
          filters: { brandId: query.brandId },
        })
        return { items: rows.map(toCustomer), nextCursor }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/customers/:id',
      operationId: 'getCustomer',
      summary: 'Read a customer',
      scope: customerScopes.read,
      params: CustomerParams,
      responses: { 200: { description: 'The customer.', schema: Customer } },
      async handler({ params, view }) {
        const row = await visibleCustomers(db, view).where('customers.id', '=', params.id).executeTakeFirst()
        if (!row) throw new Problem(kernelProblems.not_found)
        return toCustomer(row)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/customers/:id',
      operationId: 'updateCustomer',
      summary: 'Change a customer’s name or contact e-mail',
      scope: customerScopes.manage,
      params: CustomerParams,
      body: UpdateCustomerBody,
      responses: { 200: { description: 'The customer.', schema: Customer } },
      async handler({ params, body, view, audit, emit }) {
        return transaction(async (trx) => {
          const row = await visibleCustomers(trx, view)
            .where('customers.id', '=', params.id)
            .executeTakeFirst()
          if (!row) throw new Problem(kernelProblems.not_found)
          const name = body.name === undefined ? row.name : nonBlank(body.name, 'body.name')
          const email = body.email === undefined ? row.email : (body.email?.trim().toLowerCase() ?? null)
          const updatedAt = nowIso()
          await updateCustomer(trx, row.id, { name, email, updatedAt })
          await audit(trx, {
            action: 'customer.update',
            subject: { type: 'customer', id: row.id },
            customerId: row.id,
            details: { name, email },
          })
          const updated = toCustomer({ ...row, name, email, updated_at: updatedAt })
          await emit(trx, { kind: 'customer.updated', customerId: row.id, data: updated })
          return updated
        })
      },
    }),
  ]
}
