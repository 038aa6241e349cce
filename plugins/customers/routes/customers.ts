// Customer operations: create (staff), list, read, update. Every read goes through the caller's view.

import {
  brandDirectoryService,
  brandForRecord,
  fieldProblem,
  kernelProblems,
  newId,
  nonBlankText,
  nowIso,
  type PluginContext,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  t,
} from '../../../core/index.ts'
import { assertCustomerOpen, Customer, customerScopes, openCustomerProblems } from '../contract.ts'
import { customers, insertCustomer, toCustomer, updateCustomer } from '../repository.ts'

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
  const brands = context.use(brandDirectoryService)
  return resourceRoutes({
    item: Customer,
    name: 'customer',
    path: '/customers',
    key: { id: 'cus' },
    scopes: { read: customerScopes.read, manage: customerScopes.manage, create: customerScopes.create },
    table: { rows: customers, toItem: toCustomer },
    list: {
      summary: 'List customers',
      description: 'Only customers the caller may see, oldest first. `brandId` narrows the list.',
      query: ListCustomersQuery,
      filters: { brandId: 'brand_id' },
      key: 'customers.id',
    },
    read: { summary: 'Read a customer' },
    create: {
      summary: 'Create a customer',
      description:
        'Staff only: a customer owns sites, databases and subscriptions, and has a team of members.',
      body: CreateCustomerBody,
      problems: [kernelProblems.unknown_brand],
      record: { details: ({ name, email, brandId }) => ({ name, email, brandId }) },
      // The brand is looked up outside the transaction: the brands plugin reads through its own connection.
      prepare: ({ caller, body }) => brandForRecord(caller, body.brandId, () => brands, 'default'),
      async handler({ trx, body, prepared: brandId }) {
        // Again in the transaction, so a brand deleted meanwhile is seen (its deletion counts its customers).
        if (!(await brands.findBrand(brandId, trx)))
          throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
        const now = nowIso()
        const row = {
          id: newId('cus'),
          name: body.name.trim(),
          email: body.email?.trim().toLowerCase() ?? null,
          brand_id: brandId,
          status: 'active',
          job_id: null,
          created_at: now,
          updated_at: now,
        }
        await insertCustomer(trx, row)
        await context.tenancy.register(trx, row.id, brandId)
        await context.usage.adjust(trx, row.id, 'customers', 1)
        return recorded(toCustomer(row), { customerId: row.id })
      },
    },
    update: {
      summary: 'Change a customer’s name or contact e-mail',
      body: UpdateCustomerBody,
      responses: { 200: { description: 'The customer.', schema: Customer } },
      problems: [...openCustomerProblems],
      async handler({ trx, row, body }) {
        assertCustomerOpen(toCustomer(row))
        const name = body.name === undefined ? row.name : body.name.trim()
        const email = body.email === undefined ? row.email : (body.email?.trim().toLowerCase() ?? null)
        const updatedAt = nowIso()
        await updateCustomer(trx, row.id, { name, email, updatedAt })
        const updated = toCustomer({ ...row, name, email, updated_at: updatedAt })
        return recorded(updated, { customerId: row.id, details: { name, email } })
      },
    },
  })
}
