// Customer operations: create (staff) and read.

import {
  defineRoute,
  idPattern,
  kernelProblems,
  newId,
  nonBlank,
  nowIso,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
  viewIncludes,
} from '../../../core/index.ts'
import { Customer, customerScopes } from '../contract.ts'
import { customersProblems } from '../problems.ts'
import { emailTaken, findCustomer, insertCustomer, toCustomer } from '../repository.ts'

const CreateCustomerBody = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: 200,
      description: 'Display name; surrounding spaces are trimmed.',
    }),
    email: t.Optional(t.String({ format: 'email', maxLength: 254, description: 'Contact e-mail, unique.' })),
  },
  { $id: 'CreateCustomerBody' },
)

const CustomerParams = t.Object({
  id: t.String({ pattern: idPattern('cus'), description: 'Customer id, `cus_…`.' }),
})

/** The customers routes. */
export function customerRoutes({ db, transaction }: PluginContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/customers',
      operationId: 'createCustomer',
      summary: 'Create a customer',
      description: 'Staff only: a customer is the owner of sites, databases and subscriptions.',
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
      problems: [customersProblems.customer_email_taken],
      async handler({ body, audit, emit }) {
        const name = nonBlank(body.name, 'body.name')
        const email = body.email?.trim().toLowerCase() ?? null
        const now = nowIso()
        const row = { id: newId('cus'), name, email, status: 'active', created_at: now, updated_at: now }
        const customer = await transaction(async (trx) => {
          if (email && (await emailTaken(trx, email)))
            throw new Problem(customersProblems.customer_email_taken)
          await insertCustomer(trx, row)
          const created = toCustomer(row)
          await audit(trx, {
            action: 'customer.create',
            subject: { type: 'customer', id: row.id },
            customerId: row.id,
            details: { name, email },
          })
          await emit(trx, { kind: 'customer.created', customerId: row.id, data: created })
          return created
        })
        return Reply.created(customer, `/customers/${customer.id}`)
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
        const customer = viewIncludes(view, params.id) ? await findCustomer(db, params.id) : null
        if (!customer) throw new Problem(kernelProblems.not_found)
        return customer
      },
    }),
  ]
}
