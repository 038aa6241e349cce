// After creating a plain user from a customer's page (`/users/new?customerId=…`): put them on that customer's team
// right away, with a role, then go back to the customer.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { FormProblem, SelectField, SubmitButton, textOf, useApiForm } from '../../components/form.tsx'
import { Section } from '../../components/page.tsx'
import { Link, navigate } from '../../router.tsx'
import { isTeamRole, roleOptions, rolesHint } from '../customers/roles.ts'
import { useCustomer } from '../customers/use-customer.ts'

export function AddToTeam({ user, customerId }: { user: Schemas['User']; customerId: string }) {
  const queries = useQueryClient()
  const customer = useCustomer(customerId)
  const customerName = customer.data?.name ?? customerId
  const form = useApiForm(
    (data) => {
      const role = textOf(data, 'role')
      return unwrap(
        api.POST('/api/v1/customers/{id}/members', {
          params: { path: { id: customerId } },
          body: { email: user.email, role: isTeamRole(role) ? role : 'developer' },
        }),
      )
    },
    {
      onSuccess: () => {
        void queries.invalidateQueries({ queryKey: ['customers', customerId, 'members'] })
        navigate(`/customers/${encodeURIComponent(customerId)}`)
      },
    },
  )
  return (
    <Section title={`Add to ${customerName}’s team`}>
      <p>
        <strong>{user.email}</strong> can sign in now. Choose their role on the team of {customerName}.
      </p>
      <form onSubmit={form.submit} noValidate aria-label="Add member">
        <SelectField
          form={form}
          name="role"
          label="Role"
          defaultValue="developer"
          options={roleOptions}
          hint={rolesHint}
        />
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
