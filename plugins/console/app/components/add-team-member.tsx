// Putting an existing user on a customer's team with a role (`POST /customers/{id}/members`). Three forms do it (on
// a customer's page by e-mail, right after creating a user, and on a user's page choosing the customer); they share
// the call and its "Role" field.

import { api, type Schemas, unwrap } from '../api/client.ts'
import { type ApiForm, SelectField, textOf, useApiForm } from './form.tsx'
import { isTeamRole, roleOptions, rolesHint } from './team-roles.ts'

/** Whom a submit adds where: read from the form's data, or fixed by the page. */
export interface TeamMemberTarget {
  readonly customerId: string
  readonly email: string
}

/** What an addition answers: the member, and whose team they joined. */
export interface AddedMember {
  readonly member: Schemas['Member']
  readonly customerId: string
}

/**
 * A form adding `target(data)` with the role of its `role` field (a developer unless it names a team role). Then
 * `onAdded` runs. `target` may throw an `ApiProblem` to refuse at a field.
 */
export function useAddTeamMember(
  target: (data: FormData) => TeamMemberTarget,
  options: { onAdded?: (added: AddedMember) => void; resetOnSuccess?: boolean } = {},
): ApiForm<AddedMember> {
  return useApiForm(
    async (data) => {
      const { customerId, email } = target(data)
      const role = textOf(data, 'role')
      const member = await unwrap(
        api.POST('/api/v1/customers/{id}/members', {
          params: { path: { id: customerId } },
          body: { email, role: isTeamRole(role) ? role : 'developer' },
        }),
      )
      return { member, customerId }
    },
    {
      resetOnSuccess: options.resetOnSuccess,
      onSuccess: (added) => options.onAdded?.(added),
    },
  )
}

/** The "Role" select of such a form, a developer to start with, the roles explained beside it. */
export function TeamRoleField<R>({ form }: { form: ApiForm<R> }) {
  return (
    <SelectField
      form={form}
      name="role"
      label="Role"
      defaultValue="developer"
      options={roleOptions}
      hint={rolesHint}
    />
  )
}
