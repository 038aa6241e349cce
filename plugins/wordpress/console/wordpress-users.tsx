// A WordPress site's users: the list, a new user and a new password (both generated and shown once).

import { useState } from 'react'
import {
  ActionError,
  type Column,
  ConfirmButton,
  CursorTable,
  FormFooter,
  formatTime,
  SecretOnce,
  Section,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useAction,
  useApiForm,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'

type Site = SiteSchemas['Site']
type WordPressUser = Schemas['WordPressUser']
type WithPassword = Schemas['WordPressUserWithPassword']

/** WordPress's own roles; a plugin may add others, which the API accepts by name (422 for an unknown one). */
const roles = ['administrator', 'editor', 'author', 'contributor', 'subscriber']

function CreateUserForm({ site, onCreated }: { site: Site; onCreated: (user: WithPassword) => void }) {
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/wordpress/users', {
          params: { path: { id: site.id } },
          body: {
            login: textOf(data, 'login') ?? '',
            email: textOf(data, 'email') ?? '',
            role: textOf(data, 'role') ?? '',
            displayName: textOf(data, 'displayName'),
          },
        }),
      ),
    { resetOnSuccess: true, onSuccess: onCreated },
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <TextField form={form} name="login" label="Login" autoComplete="off" />
      <TextField form={form} name="email" label="E-mail" type="email" autoComplete="off" />
      <SelectField
        form={form}
        name="role"
        label="Role"
        defaultValue="editor"
        options={roles.map((role) => ({ value: role, label: role }))}
      />
      <TextField
        form={form}
        name="displayName"
        label="Display name"
        autoComplete="off"
        hint="Optional; default the login."
      />
      <FormFooter form={form}>Create WordPress user</FormFooter>
    </form>
  )
}

export function WordPressUsers({ site }: { site: Site }) {
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null)
  const reset = useAction(
    (user: WordPressUser) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/wordpress/users/{userId}/password', {
          params: { path: { id: site.id, userId: String(user.id) } },
        }),
      ),
    (user) => setSecret({ label: `New WordPress password for ${user.login}`, value: user.password }),
  )
  const columns: Column<WordPressUser>[] = [
    { header: 'Login', cell: (user) => user.login },
    { header: 'E-mail', cell: (user) => user.email },
    { header: 'Name', cell: (user) => user.displayName },
    { header: 'Roles', cell: (user) => user.roles.join(', ') || '—' },
    { header: 'Registered', cell: (user) => formatTime(user.registeredAt) },
    {
      header: 'Actions',
      cell: (user) => (
        <ConfirmButton
          confirmLabel={`Confirm new password for ${user.login}`}
          disabled={reset.isPending}
          onConfirm={() => reset.mutate(user)}
        >
          Reset password of {user.login}
        </ConfirmButton>
      ),
    },
  ]
  return (
    <Section title="Users">
      {secret ? <SecretOnce label={secret.label} value={secret.value} /> : null}
      <ActionError action={reset} />
      <CursorTable<WordPressUser>
        list={api.list('/api/v1/sites/{id}/wordpress/users', {
          params: { path: { id: site.id }, query: { limit: 50 } },
        })}
        columns={columns}
        caption="WordPress users"
        rowKey={(user) => String(user.id)}
        empty="No WordPress users. Create one below."
      />
      <h3>New WordPress user</h3>
      <CreateUserForm
        site={site}
        onCreated={(user) => {
          setSecret({ label: `WordPress password for ${user.login}`, value: user.password })
        }}
      />
    </Section>
  )
}
