// The sign-in page, in the colours and name of the brand the host name (or `?brand=`) says.

import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../components/form.tsx'
import { PageHeader } from '../components/page.tsx'
import { useSignIn } from '../session.tsx'
import type { Branding } from '../theme.ts'

export function SignIn({ branding }: { branding: Branding | null }) {
  const signIn = useSignIn()
  const form = useApiForm((data) => signIn(textOf(data, 'email') ?? '', String(data.get('password') ?? '')))
  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        {branding?.theme.logo ? <img src={branding.theme.logo} alt="" className="sign-in-logo" /> : null}
        <p className="sign-in-brand">{branding?.name ?? 'Control panel'}</p>
        <PageHeader title="Sign in" />
        <form onSubmit={form.submit} noValidate>
          <TextField form={form} name="email" label="E-mail" type="email" autoComplete="username" required />
          <TextField
            form={form}
            name="password"
            label="Password"
            type="password"
            autoComplete="current-password"
            required
          />
          <FormProblem form={form} />
          <SubmitButton form={form}>Sign in</SubmitButton>
        </form>
      </div>
    </main>
  )
}
