// On a customer user's page: putting them on a customer's team with a role (`POST /customers/{id}/members`).
// The API lists no user's teams, so this only adds; each customer's page shows and changes its team.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ApiProblem } from '../../api/problem.ts'
import { CustomerField } from '../../components/customer-field.tsx'
import { FormProblem, SelectField, SubmitButton, textOf, useApiForm } from '../../components/form.tsx'
import { Link } from '../../router.tsx'
import { isTeamRole, roleOptions, rolesHint } from '../customers/roles.ts'

export function JoinTeam({ user }: { user: Schemas['User'] }) {
  const queries = useQueryClient()
  const form = useApiForm(
    async (data) => {
      const role = textOf(data, 'role')
      const customerId = textOf(data, 'customerId')
      // The customer is in the path, not the body, so the API cannot point at this field: say it here.
      if (!customerId)
        throw new ApiProblem(
          422,
          'validation_failed',
          'Choose a customer',
          null,
          [{ location: 'body.customerId', message: 'choose the customer whose team they join' }],
          null,
        )
      const member = await unwrap(
        api.POST('/api/v1/customers/{id}/members', {
          params: { path: { id: customerId } },
          body: { email: user.email, role: isTeamRole(role) ? role : 'developer' },
        }),
      )
      return { member, customerId }
    },
    {
      onSuccess: ({ customerId }) =>
        void queries.invalidateQueries({ queryKey: ['customers', customerId, 'members'] }),
    },
  )
  return (
    <form onSubmit={form.submit} noValidate aria-label="Add to a team">
      <CustomerField form={form} />
      <SelectField
        form={form}
        name="role"
        label="Role"
        defaultValue="developer"
        options={roleOptions}
        hint={rolesHint}
      />
      <FormProblem form={form} />
      {form.result && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          Added as {form.result.member.role}.{' '}
          <Link to={`/customers/${encodeURIComponent(form.result.customerId)}`}>See the team</Link>
        </p>
      ) : null}
      <div>
        <SubmitButton form={form}>Add to team</SubmitButton>
      </div>
    </form>
  )
}
