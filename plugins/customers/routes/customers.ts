// Customer operations: create (staff), list, read, update. Every read goes through the caller's view.

import {
  brandDirectoryService,
  brandForRecord,
  defineRoute,
  kernelProblems,
  newId,
  nonBlankText,
  nowIso,
  type PluginContext,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { Customer, customerScopes } from '../contract.ts'
import {
  findVisibleCustomer,
  insertCustomer,
  toCustomer,
  updateCustomer,
  visibleCustomers,
} from '../repository.ts'

const Email = t.String({
  format: 'email',
  maxLength: 254,
  description: 'Contact e-mail (several customers may share one).',
})

const CreateCustomerBody = t.Object(
  {
    name: nonBlankText({ maxLength: 200, description: 'Display name; surrounding spaces are trimmed.' }),
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
    name: t.Optional(nonBlankText({ maxLength: 200 })),
    email: t.Optional(t.Union([Email, t.Null()], { description: 'null removes the contact e-mail.' })),
  },
  { $id: 'UpdateCustomerBody' },
)

const ListCustomersQuery = t.Object({
  brandId: t.Optional(
    t.String({ maxLength: 64, description: 'Only customers of this brand (narrows, never widens).' }),
  ),
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
        const name = body.name.trim()
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
          await context.tenancy.register(trx, row.id, brandId)
          await context.usage.adjust(trx, row.id, 'customers', 1)
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
      list: { item: Customer, key: 'customers.id', toItem: toCustomer },
      handler({ query, view }) {
        const customers = visibleCustomers(db, view)
        return query.brandId === undefined ? customers : customers.where('brand_id', '=', query.brandId)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/customers/:id',
      operationId: 'getCustomer',
      summary: 'Read a customer',
      scope: customerScopes.read,
      params: { id: 'cus' },
      responses: { 200: { description: 'The customer.', schema: Customer } },
      async handler({ params, view }) {
        return toCustomer(await findVisibleCustomer(db, view, params.id))
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/customers/:id',
      operationId: 'updateCustomer',
      summary: 'Change a customer’s name or contact e-mail',
      scope: customerScopes.manage,
      params: { id: 'cus' },
      body: UpdateCustomerBody,
      responses: { 200: { description: 'The customer.', schema: Customer } },
      async handler({ params, body, view, audit, emit }) {
        return transaction(async (trx) => {
          const row = await findVisibleCustomer(trx, view, params.id)
          const name = body.name === undefined ? row.name : body.name.trim()
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
