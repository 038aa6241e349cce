// Rotating a login's password: a new one (generated unless given) shown once; the old one stops working when the
// user's job has set the new one on the server.

import { FormFooter, Section, TextField, textOf, unwrap, useApiForm } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { CreatedDatabaseUser } from './created-database-user.tsx'

export function RotatePassword({
  user,
  onRotated,
}: {
  user: Schemas['DatabaseUser']
  onRotated: (user: Schemas['DatabaseUserWithPassword']) => void
}) {
  const form = useApiForm(
    (data) => {
      const password = textOf(data, 'password')
      return unwrap(
        api.POST('/api/v1/database-users/{id}/rotate-password', {
          params: { path: { id: user.id } },
          body: password ? { password } : {},
        }),
      )
    },
    { onSuccess: onRotated, resetOnSuccess: true },
  )
  return (
    <>
      {form.result ? (
        <CreatedDatabaseUser
          key={form.result.jobId}
          user={form.result}
          title="New password"
          showLink={false}
          showJob={false}
        />
      ) : null}
      <Section title="Rotate password">
        <form onSubmit={form.submit} noValidate>
          <p className="muted">
            The old password stops working once the new one is set on the server. A failed login is made
            again.
          </p>
          <TextField
            form={form}
            name="password"
            label="Own password (optional)"
            type="password"
            autoComplete="new-password"
            hint="Empty: the panel makes a strong one and shows it once."
          />
          <FormFooter form={form}>Rotate password</FormFooter>
        </form>
      </Section>
    </>
  )
}
