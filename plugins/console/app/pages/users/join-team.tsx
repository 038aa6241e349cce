// On a customer user's page: putting them on a customer's team with a role (`POST /customers/{id}/members`).
// The API lists no user's teams, so this only adds; each customer's page shows and changes its team.

import type { Schemas } from '../../api/client.ts'
import { ApiProblem } from '../../api/problem.ts'
import { TeamRoleField, useAddTeamMember } from '../../components/add-team-member.tsx'
import { CustomerField } from '../../components/customer-field.tsx'
import { FormProblem, SubmitButton, textOf } from '../../components/form.tsx'
import { Link } from '../../router.tsx'

export function JoinTeam({ user }: { user: Schemas['User'] }) {
  const form = useAddTeamMember((data) => {
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
    return { customerId, email: user.email }
  })
  return (
    <form onSubmit={form.submit} noValidate aria-label="Add to a team">
      <CustomerField form={form} />
      <TeamRoleField form={form} />
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
