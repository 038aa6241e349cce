// A customer's team: add existing users with a role, change roles, remove members; at least one owner stays.

import {
  type Caller,
  type ChangedResource,
  type Db,
  defineRoute,
  fieldProblem,
  findUserByEmail,
  kernelProblems,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  recorded,
  type TeamRole,
  TeamRoleSchema,
  type TenantView,
  type Trx,
  t,
} from '../../../core/index.ts'
import { assertCustomerOpen, customerScopes, Member } from '../contract.ts'
import { customersProblems } from '../problems.ts'
import { customers, toCustomer } from '../repository.ts'

const AddMemberBody = t.Object(
  {
    email: t.String({ format: 'email', maxLength: 320, description: 'An existing user’s e-mail.' }),
    role: TeamRoleSchema,
  },
  { $id: 'AddMemberBody' },
)
const MemberParams = { id: 'cus', userId: 'usr' } as const

/** Whether the caller may make, demote or remove owners of this customer: staff and the customer's owners. */
function mayChangeOwners(caller: Caller, customerId: string): boolean {
  if (caller.kind !== 'member') return true
  return caller.memberships.some(
    (membership) => membership.customerId === customerId && membership.role === 'owner',
  )
}

/** Who a member's audit entries are about: the user made a member, changed or removed. */
const memberChange = (action: string) => ({
  action,
  subject: (member: ChangedResource) => ({ type: 'user', id: String(member.userId) }),
})

/** The members routes. */
export function memberRoutes({ tenancy }: PluginContext): RouteDefinition[] {
  const { members } = tenancy
  const location = (customerId: string, userId: string) => `/customers/${customerId}/members/${userId}`

  return [
    defineRoute({
      method: 'GET',
      path: '/customers/:id/members',
      operationId: 'listMembers',
      summary: 'List a customer’s team',
      scope: customerScopes.membersManage,
      params: { id: 'cus' },
      list: { item: Member, key: 'memberships.user_id' },
      async handler({ db, params, view }) {
        await customers.find(db, view, params.id)
        return members.list(db, params.id)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/customers/:id/members',
      operationId: 'addMember',
      idempotent: true,
      summary: 'Add an existing user to a customer’s team',
      scope: customerScopes.membersManage,
      params: { id: 'cus' },
      body: AddMemberBody,
      responses: {
        201: { description: 'The new member.', schema: Member, headers: { Location: 'URL of the member.' } },
      },
      problems: [
        customersProblems.unknown_user,
        customersProblems.already_member,
        customersProblems.owner_change_not_allowed,
        kernelProblems.customer_deleting,
      ],
      change: memberChange('member.create'),
      async handler({ trx, params, body, caller, view }) {
        assertCustomerOpen(toCustomer(await customers.find(trx, view, params.id)))
        if (body.role === 'owner' && !mayChangeOwners(caller, params.id))
          throw new Problem(customersProblems.owner_change_not_allowed)
        const user = await findUserByEmail(trx, body.email)
        // Staff see customers through their role; they answer like unknown e-mails, so staff stay unnamed.
        if (!user || user.staffRole !== null) throw fieldProblem(customersProblems.unknown_user, 'body.email')
        if (await members.find(trx, params.id, user.id)) throw new Problem(customersProblems.already_member)
        await members.add(trx, params.id, user.id, body.role)
        const member = orNotFound(await members.find(trx, params.id, user.id))
        return recorded(Reply.created(member, location(params.id, member.userId)), {
          customerId: params.id,
          details: { role: body.role },
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/customers/:id/members/:userId',
      operationId: 'getMember',
      summary: 'Read one member of a customer’s team',
      scope: customerScopes.membersManage,
      params: MemberParams,
      responses: { 200: { description: 'The member.', schema: Member } },
      handler: ({ db, params, view }) => memberInView(db, view, params.id, params.userId),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/customers/:id/members/:userId',
      operationId: 'changeMemberRole',
      summary: 'Change a member’s role',
      scope: customerScopes.membersManage,
      params: MemberParams,
      body: t.Object({ role: TeamRoleSchema }, { $id: 'ChangeMemberRoleBody' }),
      responses: { 200: { description: 'The member.', schema: Member } },
      problems: [customersProblems.last_owner, customersProblems.owner_change_not_allowed],
      change: memberChange('member.update'),
      async handler({ trx, params, body, caller, view }) {
        const member = await memberInView(trx, view, params.id, params.userId)
        await guardOwnerChange(trx, caller, params.id, member.role, body.role)
        await members.changeRole(trx, params.id, params.userId, body.role)
        return recorded(
          { ...member, role: body.role },
          { customerId: params.id, details: { from: member.role, role: body.role } },
        )
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/customers/:id/members/:userId',
      operationId: 'removeMember',
      summary: 'Remove a member from a customer’s team',
      description: 'Their tokens lose every permission on this customer at once.',
      scope: customerScopes.membersManage,
      params: MemberParams,
      responses: { 204: { description: 'Removed.' } },
      problems: [customersProblems.last_owner, customersProblems.owner_change_not_allowed],
      change: memberChange('member.delete'),
      async handler({ trx, params, caller, view }) {
        const member = await memberInView(trx, view, params.id, params.userId)
        await guardOwnerChange(trx, caller, params.id, member.role, null)
        await members.remove(trx, params.id, params.userId)
        return recorded(member, { customerId: params.id, details: { role: member.role } })
      },
    }),
  ]

  async function memberInView(trx: Db, view: TenantView, customerId: string, userId: string) {
    await customers.find(trx, view, customerId)
    return orNotFound(await members.find(trx, customerId, userId))
  }

  /** Owners are made, demoted or removed only by owners and staff, and the last owner always stays. */
  async function guardOwnerChange(
    trx: Trx,
    caller: Caller,
    customerId: string,
    from: TeamRole,
    to: TeamRole | null,
  ): Promise<void> {
    const touchesOwner = from === 'owner' || to === 'owner'
    if (touchesOwner && from !== to && !mayChangeOwners(caller, customerId))
      throw new Problem(customersProblems.owner_change_not_allowed)
    if (from === 'owner' && to !== 'owner' && (await members.countOwners(trx, customerId)) <= 1)
      throw new Problem(customersProblems.last_owner)
  }
}
