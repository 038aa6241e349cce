// What staff fill in for each kind of backup target: where it is, and the credentials nodes write with (and, for a
// push-only target, the ones only the panel prunes with). Each field is named by its place in the body, so a refusal
// of `body.<name>` (the check that could not connect, log in or write there) shows at that field.

import type { Schemas } from './api.ts'

export type TargetKind = Schemas['BackupTarget']['kind']

export interface TargetField {
  /** Its place in the body: `host`, `password`. */
  readonly name: string
  readonly label: string
  readonly hint?: string
  readonly secret?: boolean
  readonly multiline?: boolean
  readonly number?: boolean
  /** Sent as a list, one item a line. */
  readonly list?: boolean
  readonly optional?: boolean
}

export const targetKindOptions: readonly { readonly value: TargetKind; readonly label: string }[] = [
  { value: 'local', label: 'On each site’s own node (not offsite)' },
  { value: 'sftp', label: 'SFTP server' },
  { value: 'rest', label: 'restic REST server' },
  { value: 's3', label: 'S3-compatible store' },
]

export const targetFields: Readonly<Record<TargetKind, readonly TargetField[]>> = {
  local: [],
  sftp: [
    { name: 'host', label: 'Host', hint: 'Host name or IP address nodes reach it at.' },
    { name: 'port', label: 'Port', number: true, optional: true, hint: 'Default 22.' },
    { name: 'username', label: 'Username' },
    { name: 'path', label: 'Folder', hint: 'Where the sites’ repositories go on the server (/srv/backups).' },
    {
      name: 'privateKey',
      label: 'Private key',
      secret: true,
      multiline: true,
      hint: 'An OpenSSH private key without a passphrase. Sealed at rest and never shown back.',
    },
    {
      name: 'hostKeys',
      label: 'Host keys (optional)',
      optional: true,
      multiline: true,
      list: true,
      hint: 'The server’s public host keys, one a line, as ssh-keyscan prints them (ssh-ed25519 AAAA…); empty pins the keys it shows now.',
    },
  ],
  rest: [
    { name: 'url', label: 'URL', hint: 'The REST server’s address (https://backup.example.net:8000/).' },
    { name: 'username', label: 'Username', optional: true },
    {
      name: 'password',
      label: 'Password',
      secret: true,
      optional: true,
      hint: 'Sealed at rest, never shown back.',
    },
    {
      name: 'pruneUsername',
      label: 'Prune username (optional)',
      optional: true,
      hint: 'A second login that may delete (the server run with --append-only for the first): nodes then cannot delete snapshots.',
    },
    { name: 'prunePassword', label: 'Prune password (optional)', secret: true, optional: true },
  ],
  s3: [
    { name: 'endpoint', label: 'Endpoint', hint: 'https://s3.eu-central-1.amazonaws.com, or your store’s.' },
    { name: 'bucket', label: 'Bucket' },
    { name: 'prefix', label: 'Prefix (optional)', optional: true },
    { name: 'region', label: 'Region (optional)', optional: true },
    { name: 'accessKeyId', label: 'Access key id' },
    {
      name: 'secretAccessKey',
      label: 'Secret access key',
      secret: true,
      hint: 'Sealed at rest, never shown back.',
    },
    {
      name: 'pruneAccessKeyId',
      label: 'Prune access key id (optional)',
      optional: true,
      hint: 'Keys that may delete, kept by the panel alone: nodes then get keys that only write.',
    },
    {
      name: 'pruneSecretAccessKey',
      label: 'Prune secret access key (optional)',
      secret: true,
      optional: true,
    },
  ],
}

/** The body of `POST /backup-targets` from the form's data: each field at its place, empty ones left out. */
export function targetBody(kind: TargetKind, data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of targetFields[kind]) {
    // A secret is what it is (not trimmed); the rest is trimmed.
    const raw = String(data.get(field.name) ?? '')
    const value = field.secret ? raw : raw.trim()
    if (value === '') continue
    setAt(
      body,
      field.name,
      field.number
        ? Number(value)
        : field.list
          ? value
              .split('\n')
              .map((line) => line.trim())
              .filter(Boolean)
          : value,
    )
  }
  return body
}

/** Sets `value` at a dotted `path` of `target`, making the objects on the way. */
function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const [head, ...rest] = path.split('.') as [string, ...string[]]
  if (rest.length === 0) {
    target[head] = value
    return
  }
  if (typeof target[head] !== 'object' || target[head] === null) target[head] = {}
  const inner = target[head] as Record<string, unknown>
  setAt(inner, rest.join('.'), value)
}
