// Changing one's password (`POST /me/password`). The API ends every session of the user and answers a new one for
// this browser (cookie and CSRF token), so the app takes the new CSRF token.

import { api, setCsrfToken, unwrap } from '../../api/client.ts'
import { FormProblem, SubmitButton, TextField, useApiForm } from '../../components/form.tsx'

export function ChangePassword() {
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/me/password', {
          // Passwords are taken as typed: spaces may be part of them.
          body: {
            currentPassword: String(data.get('currentPassword') ?? ''),
            newPassword: String(data.get('newPassword') ?? ''),
          },
        }),
      ),
    {
      resetOnSuccess: true,
      onSuccess: (login) => {
        // The old session's CSRF token died with it; use the new one at once, before `/me` answers again (a
        // change at `/me/password` reads `/me` again).
        if (login) setCsrfToken(login.csrfToken)
      },
    },
  )
  return (
    <form onSubmit={form.submit} noValidate aria-label="Change password">
      <TextField
        form={form}
        name="currentPassword"
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
      />
      <TextField
        form={form}
        name="newPassword"
        label="New password"
        type="password"
        autoComplete="new-password"
        hint="12 to 256 characters."
        required
      />
      <FormProblem form={form} />
      {form.result !== null && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          Password changed. Every other browser signed in as you was signed out; API tokens keep working.
        </p>
      ) : null}
      <div>
        <SubmitButton form={form}>Change password</SubmitButton>
      </div>
    </form>
  )
}
