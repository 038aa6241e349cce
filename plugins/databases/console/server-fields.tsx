// The fields a database server is described by, for adding one and for changing it. The password is never shown
// back: the change form leaves it empty, and an empty one there keeps the current password.

import { type ApiForm, SelectField, TextField } from '../../console/kit.ts'

/** Status choices of a server, with what each means. */
export const serverStatusOptions = [
  { value: 'active', label: 'Active: receives new databases' },
  { value: 'draining', label: 'Draining: keeps its databases, receives none' },
  { value: 'disabled', label: 'Disabled: out of use' },
] as const

export function ServerConnectionFields<R>({
  form,
  current,
}: {
  form: ApiForm<R>
  /** The server's present values, when changing one. */
  current?: { host: string; port: number; username: string }
}) {
  return (
    <>
      <TextField
        form={form}
        name="host"
        label="Host"
        defaultValue={current?.host}
        autoComplete="off"
        spellCheck={false}
        hint="Host name or IP address the panel and the sites reach it at."
      />
      <TextField
        form={form}
        name="port"
        label="Port"
        inputMode="numeric"
        defaultValue={current?.port}
        hint="MariaDB listens on 3306, PostgreSQL on 5432."
      />
      <TextField
        form={form}
        name="username"
        label="Username"
        defaultValue={current?.username}
        autoComplete="off"
        spellCheck={false}
        hint="An administrator who may create databases and users."
      />
      <TextField
        form={form}
        name="password"
        label={current ? 'New password (optional)' : 'Password'}
        type="password"
        autoComplete="new-password"
        hint={
          current
            ? 'Empty keeps the current one. Never shown back.'
            : 'Sealed at rest and never shown back. May be empty.'
        }
      />
    </>
  )
}

export function ServerPlacementFields<R>({
  form,
  current,
}: {
  form: ApiForm<R>
  current?: { status: string; capacity: number | null }
}) {
  return (
    <>
      <TextField
        form={form}
        name="capacity"
        label="Capacity (optional)"
        inputMode="numeric"
        defaultValue={current?.capacity ?? undefined}
        hint="How many databases it may hold; empty for no limit."
      />
      <SelectField
        form={form}
        name="status"
        label="Status"
        defaultValue={current?.status ?? 'active'}
        options={serverStatusOptions}
      />
    </>
  )
}
