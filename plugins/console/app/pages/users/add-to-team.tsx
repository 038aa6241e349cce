// After creating a plain user from a customer's page (`/users/new?customerId=…`): put them on that customer's team
// right away, with a role, then go back to the customer.

import type { Schemas } from '../../api/client.ts'
import { TeamRoleField, useAddTeamMember } from '../../components/add-team-member.tsx'
import { useCustomer } from '../../components/customers.ts'
import { FormProblem, SubmitButton } from '../../components/form.tsx'
import { Section } from '../../components/page.tsx'
import { Link, navigate } from '../../router.tsx'

export function AddToTeam({ user, customerId }: { user: Schemas['User']; customerId: string }) {
  const customer = useCustomer(customerId)
  const customerName = customer.data?.name ?? customerId
  const form = useAddTeamMember(() => ({ customerId, email: user.email }), {
    onAdded: () => navigate(`/customers/${encodeURIComponent(customerId)}`),
  })
  return (
    <Section title={`Add to ${customerName}’s team`}>
      <p>
        <strong>{user.email}</strong> can sign in now. Choose their role on the team of {customerName}.
      </p>
      <form onSubmit={form.submit} noValidate aria-label="Add member">
        <TeamRoleField form={form} />
        <FormProblem form={form} />
        <div className="actions">
          <SubmitButton form={form}>Add member</SubmitButton>
          <Link className="button secondary" to={`/users/${encodeURIComponent(user.id)}`}>
            Not now
          </Link>
        </div>
      </form>
    </Section>
  )
}
