// Creates an SFTP account for a site: a generated password (shown once) and/or SSH public keys, read-only or not,
// with an optional expiry.

import {
  CheckboxField,
  Facts,
  FormFooter,
  isoOfLocal,
  SecretOnce,
  TextAreaField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useIdempotencyKey,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { SftpConnection } from './sftp-connection.tsx'

type Site = SiteSchemas['Site']
type CreateSftpUserBody = Schemas['CreateSftpUserBody']

function bodyOf(data: FormData): CreateSftpUserBody {
  const keys = (textOf(data, 'publicKeys') ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const expires = textOf(data, 'expiresAt')
  const expiresAt = expires ? isoOfLocal(expires) : null
  return {
    name: textOf(data, 'name'),
    password: data.get('password') === 'true',
    ...(keys.length > 0 ? { publicKeys: keys } : {}),
    readOnly: data.get('readOnly') === 'true',
    expiresAt,
  }
}

export function SftpCreateForm({ site }: { site: Site }) {
  const idempotency = useIdempotencyKey()
  const form = useApiForm(
    async (data) => {
      try {
        return await unwrap(
          api.POST('/api/v1/sites/{id}/sftp-users', {
            params: { path: { id: site.id }, header: { 'Idempotency-Key': idempotency.key() } },
            body: bodyOf(data),
          }),
        )
      } catch (error) {
        idempotency.afterFailure(error)
        throw error
      }
    },
    // The form stays for the next account, which needs a key of its own.
    { resetOnSuccess: true, onSuccess: () => idempotency.afterSuccess() },
  )
  const created = form.result
  return (
    <>
      {created ? (
        <div className="notice notice-info">
          <p>
            Created <code>{created.username}</code>.
          </p>
          {created.password ? (
            <SecretOnce label={`SFTP password for ${created.username}`} value={created.password} />
          ) : null}
          <Facts items={[['Username', <code key="user">{created.username}</code>]]} />
          <SftpConnection account={created} />
        </div>
      ) : null}
      <form onSubmit={form.submit} noValidate>
        <TextField
          form={form}
          name="name"
          label="Account name"
          autoComplete="off"
          hint={`Optional. The login is ${site.handle}. and this name; without one, eight random characters.`}
        />
        <CheckboxField
          form={form}
          name="password"
          label="Sign in with a password"
          defaultChecked
          hint="The panel generates it and shows it once."
        />
        <TextAreaField
          form={form}
          name="publicKeys"
          label="SSH public keys"
          hint="Optional. One key a line, as ssh-keygen writes it: ssh-ed25519 AAAA… you@laptop."
          spellCheck={false}
        />
        <CheckboxField
          form={form}
          name="readOnly"
          label="Read-only"
          hint="Uploads, renames and removals are refused."
        />
        <TextField
          form={form}
          name="expiresAt"
          label="Expires"
          type="datetime-local"
          hint="Optional. After it, logins are refused and live sessions end."
        />
        <FormFooter form={form}>Create SFTP account</FormFooter>
      </form>
    </>
  )
}
