// Adding an existing user to a team by e-mail, with a role (`POST /customers/{id}/members`). Members are existing
// users (AddMemberBody), so staff who may create users get a link to create one first, coming back here after.

import { useState } from 'react'
import {
  FormProblem,
  Link,
  SubmitButton,
  TeamRoleField,
  TextField,
  textOf,
  useAddTeamMember,
  useSession,
} from '../../console/kit.ts'

export function AddMember({ customerId }: { customerId: string }) {
  const session = useSession()
  const [email, setEmail] = useState('')
  const form = useAddTeamMember((data) => ({ customerId, email: textOf(data, 'email') ?? '' }), {
    resetOnSuccess: true,
    onAdded: () => setEmail(''),
  })
  const mayCreateUsers = session.staff && session.can('user:manage')
  const createUserLink = `/users/new?${new URLSearchParams({
    customerId,
    ...(email.trim() ? { email: email.trim() } : {}),
  })}`
  return (
    <form onSubmit={form.submit} noValidate aria-label="Add member">
      <TextField
        form={form}
        name="email"
        label="E-mail"
        type="email"
        autoComplete="off"
        hint="The e-mail address of someone who already has an account."
        onChange={(event) => setEmail(event.target.value)}
      />
      <TeamRoleField form={form} />
      <FormProblem form={form} />
      {form.problem?.code === 'unknown_user' && mayCreateUsers ? (
        <p className="notice notice-info">
          No account has this address yet. <Link to={createUserLink}>Create the user</Link>, then add them
          here.
        </p>
      ) : null}
      {form.result && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          {form.result.member.email} is now on the team as {form.result.member.role}.
        </p>
      ) : null}
      <div className="actions">
        <SubmitButton form={form}>Add member</SubmitButton>
        {mayCreateUsers ? (
          <Link className="button secondary" to={createUserLink}>
            Create a new user first
          </Link>
        ) : null}
      </div>
    </form>
  )
}
