// The customers plugin's public contract: what other plugins and examples may import. Never import its internals.

import { defineService, type Static, TeamRoleSchema, t } from '../../core/index.ts'

/** A customer as the API returns it. */
export const Customer = t.Object(
  {
    id: t.String({ description: 'Identifier, `cus_…`.', examples: ['cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    name: t.String({ description: 'Display name of the customer (a person or a company).' }),
    email: t.Union([t.String({ format: 'email' }), t.Null()], { description: 'Contact e-mail, if given.' }),
    brandId: t.String({ description: 'The brand the customer belongs to, `brd_…`; fixed at creation.' }),
    status: t.Literal('active', {
      description: 'Lifecycle state; `active` until suspension arrives with billing.',
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
