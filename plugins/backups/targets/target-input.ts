// What staff send to add or change a backup target: the body's schemas, and the checks that turn a body into the
// target's place and secrets (each refusal located at its field), before the target itself is tried.

import { isIP } from 'node:net'
import { enumOf, Problem, type ProblemRef, t } from '../../../core/index.ts'
import { targetKinds } from '../contract.ts'
import { targetProblems } from './problems.ts'
import { hostKeyOf, usablePrivateKey } from './ssh-keys.ts'
import type { OpenTarget, PruneSecrets, PushSecrets, TargetPlace } from './target-record.ts'

const Name = t.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\s\\x00-\\x1f\\x7f](?:[^\\x00-\\x1f\\x7f]*[^\\s\\x00-\\x1f\\x7f])?$',
  description: 'A name for people (`Offsite SFTP`), unique, without leading or trailing spaces.',
})
const Secret = (description: string) => t.String({ minLength: 1, maxLength: 1024, description })
const Login = (description: string) =>
  t.String({ minLength: 1, maxLength: 128, pattern: '^[^\\s:\\x00-\\x1f\\x7f]+$', description })

/** The fields each kind takes; `required` ones must be given. */
const kindFields = {
  local: { required: [], optional: [] },
  sftp: { required: ['host', 'username', 'path', 'privateKey'], optional: ['port', 'hostKeys'] },
  rest: { required: ['url'], optional: ['username', 'password', 'pruneUsername', 'prunePassword'] },
  s3: {
    required: ['endpoint', 'bucket', 'accessKeyId', 'secretAccessKey'],
    optional: ['prefix', 'region', 'pruneAccessKeyId', 'pruneSecretAccessKey'],
  },
} as const
/** The credentials PATCH may change, per kind. */
const credentialFields = {
  local: [],
  sftp: ['username', 'privateKey', 'hostKeys'],
  rest: ['username', 'password', 'pruneUsername', 'prunePassword'],
  s3: ['accessKeyId', 'secretAccessKey', 'pruneAccessKeyId', 'pruneSecretAccessKey'],
} as const

const credentials = {
  username: t.Optional(Login('sftp: the login; rest: the user nodes write as (ideally append-only).')),
  privateKey: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 16_384,
      description:
        'sftp: the login’s private key, unencrypted OpenSSH or PEM (`-----BEGIN OPENSSH PRIVATE KEY-----`). Sealed, never returned.',
    }),
  ),
  hostKeys: t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 16_384 }), {
      minItems: 1,
      maxItems: 20,
      description:
        'sftp: the server’s public host keys (`ssh-ed25519 AAAA…`, as `ssh-keyscan` prints them). Default: the keys the server shows when the target is added, pinned from then on (their fingerprints in `location.hostKeyFingerprint`).',
    }),
  ),
  password: t.Optional(Secret('rest: the password of `username`. Sealed, never returned.')),
  pruneUsername: t.Optional(
    Login(
      'rest: a user that may delete, which only the panel holds (with `prunePassword`): the target is then `pushOnly`.',
    ),
  ),
  prunePassword: t.Optional(Secret('rest: the password of `pruneUsername`. Sealed, never returned.')),
  accessKeyId: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[\\x21-\\x7e]+$',
      description: 's3: the access key nodes write with (ideally one without `DeleteObject`).',
    }),
  ),
  secretAccessKey: t.Optional(Secret('s3: its secret. Sealed, never returned.')),
  pruneAccessKeyId: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[\\x21-\\x7e]+$',
      description: 's3: a key that may delete, which only the panel holds: the target is then `pushOnly`.',
    }),
  ),
  pruneSecretAccessKey: t.Optional(Secret('s3: its secret. Sealed, never returned.')),
}

/** The body of `POST /backup-targets`. */
export const CreateTargetBody = t.Object(
  {
    name: Name,
    kind: enumOf(targetKinds, { description: 'Where repositories go; the other fields depend on it.' }),
    default: t.Optional(
      t.Boolean({
        description: 'Make it the default target (the former default stops being it). Default false.',
      }),
    ),
    host: t.Optional(
      t.String({ minLength: 1, maxLength: 253, description: 'sftp: the server’s host name or IP address.' }),
    ),
    port: t.Optional(
      t.Integer({ minimum: 1, maximum: 65535, description: 'sftp: its SSH port. Default 22.' }),
    ),
    path: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'sftp: the folder repositories go in (absolute, or relative to the login’s home): `<path>/<siteId>`.',
      }),
    ),
    url: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'rest: the server’s URL (`https://backup.example.net:8000/plinth`): repositories at `<url>/<siteId>/`.',
      }),
    ),
    endpoint: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2048,
        description: 's3: the endpoint (`https://s3.eu-central-1.amazonaws.com`).',
      }),
    ),
    bucket: t.Optional(t.String({ minLength: 1, maxLength: 63, description: 's3: the bucket.' })),
    prefix: t.Optional(
      t.String({
        maxLength: 512,
        description: 's3: the key prefix repositories go under (`<prefix>/<siteId>`). Default none.',
      }),
    ),
    region: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-z0-9-]+$',
        description: 's3: the region (`eu-central-1`). Default: as the endpoint says.',
      }),
    ),
    ...credentials,
  },
  { $id: 'CreateBackupTargetBody' },
)
export type CreateTargetBody = (typeof CreateTargetBody)['static']

/** The body of `PATCH /backup-targets/{id}`. */
export const UpdateTargetBody = t.Object(
  {
    name: t.Optional(Name),
    default: t.Optional(
      t.Literal(true, {
        description: 'Make it the default target; the former default stops being it at once.',
      }),
    ),
    ...credentials,
  },
  {
    $id: 'UpdateBackupTargetBody',
    description:
      'Fields to change; omitted ones stay. Where a target is cannot change (its repositories are there); its credentials can, and new ones are checked as when it was added before they are kept.',
  },
)
export type UpdateTargetBody = (typeof UpdateTargetBody)['static']

/** One refusal of a field. */
interface FieldError {
  readonly location: string
  readonly message: string
  readonly code: string
}

/** Gathers field refusals and throws them as one problem (the first one's code). */
class Refusals {
  readonly errors: FieldError[] = []
  add(problem: ProblemRef, field: string, message: string = problem.detail): void {
    this.errors.push({ location: `body.${field}`, message, code: problem.code })
  }
  throwAny(): void {
    const [first] = this.errors
    if (!first) return
    const problem = Object.values(targetProblems).find((ref) => ref.code === first.code) as ProblemRef
    throw new Problem(problem, { detail: first.message, errors: this.errors })
  }
}

/** The place and secrets a create body describes; refusals name their fields. Host keys are not scanned here. */
export async function targetOfBody(body: CreateTargetBody): Promise<OpenTarget> {
  const refusals = new Refusals()
  const fields = kindFields[body.kind]
  const allowed = new Set<string>(['name', 'kind', 'default', ...fields.required, ...fields.optional])
  for (const field of Object.keys(body))
    if (!allowed.has(field) && (body as Record<string, unknown>)[field] !== undefined)
      refusals.add(
        targetProblems.backup_target_kind_fields,
        field,
        `does not belong to a ${body.kind} target`,
      )
  for (const field of fields.required)
    if ((body as Record<string, unknown>)[field] === undefined)
      refusals.add(targetProblems.backup_target_kind_fields, field, `is required for a ${body.kind} target`)
  refusals.throwAny()
  const target = await checkedTarget(body, refusals)
  refusals.throwAny()
  return target
}

/** The target with a PATCH body's credentials applied; fields that are not the kind's credentials are refused. */
export async function targetWithChanges(current: OpenTarget, body: UpdateTargetBody): Promise<OpenTarget> {
  const refusals = new Refusals()
  const kind = current.place.kind
  const changeable = new Set<string>(credentialFields[kind])
  for (const field of Object.keys(body))
    if (
      !['name', 'default'].includes(field) &&
      !changeable.has(field) &&
      (body as Record<string, unknown>)[field] !== undefined
    )
      refusals.add(targetProblems.backup_target_kind_fields, field, `is not a credential of a ${kind} target`)
  refusals.throwAny()
  const merged = { ...bodyOf(current), ...body, kind } as CreateTargetBody
  const target = await checkedTarget(merged, refusals)
  refusals.throwAny()
  return target
}

/** Whether a PATCH body changes anything the target is reached with (then it is checked again). */
export function changesCredentials(body: UpdateTargetBody): boolean {
  return Object.keys(body).some((field) => !['name', 'default'].includes(field))
}

/** The create body a stored target would have been added with (secrets included: used only to merge a PATCH). */
function bodyOf(target: OpenTarget): Partial<CreateTargetBody> {
  const { place, push, prune } = target
  switch (place.kind) {
    case 'local':
      return {}
    case 'sftp':
      return {
        host: place.host,
        port: place.port,
        username: place.username,
        path: place.path,
        hostKeys: [...place.hostKeys],
        privateKey: push?.kind === 'sftp' ? push.privateKey : undefined,
      }
    case 'rest':
      return {
        url: place.url,
        username: place.username ?? undefined,
        password: push?.kind === 'rest' ? (push.password ?? undefined) : undefined,
        pruneUsername: prune?.kind === 'rest' ? prune.username : undefined,
        prunePassword: prune?.kind === 'rest' ? prune.password : undefined,
      }
    case 's3':
      return {
        endpoint: place.endpoint,
        bucket: place.bucket,
        prefix: place.prefix,
        region: place.region ?? undefined,
        accessKeyId: place.accessKeyId,
        secretAccessKey: push?.kind === 's3' ? push.secretAccessKey : undefined,
        pruneAccessKeyId: prune?.kind === 's3' ? prune.accessKeyId : undefined,
        pruneSecretAccessKey: prune?.kind === 's3' ? prune.secretAccessKey : undefined,
      }
  }
}

async function checkedTarget(body: CreateTargetBody, refusals: Refusals): Promise<OpenTarget> {
  switch (body.kind) {
    case 'local':
      return { place: { kind: 'local' }, push: null, prune: null }
    case 'sftp': {
      const host = body.host as string
      if (!validHost(host)) refusals.add(targetProblems.invalid_target_host, 'host')
      if (!validPath(body.path as string, false)) refusals.add(targetProblems.invalid_target_path, 'path')
      // As the node service takes an SFTP login: a name ssh passes on unquoted.
      if (!/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/.test(body.username as string))
        refusals.add(targetProblems.invalid_target_username, 'username')
      if (!(await usablePrivateKey(body.privateKey as string)))
        refusals.add(targetProblems.invalid_private_key, 'privateKey')
      const hostKeys = (body.hostKeys ?? []).map((line, index) => {
        const key = hostKeyOf(line)
        if (!key) refusals.add(targetProblems.invalid_host_key, `hostKeys[${index}]`)
        return key ?? ''
      })
      const place: TargetPlace = {
        kind: 'sftp',
        host: host.replace(/^\[(.*)\]$/, '$1'),
        port: body.port ?? 22,
        username: body.username as string,
        path: body.path as string,
        hostKeys: [...new Set(hostKeys)].sort(),
      }
      const push: PushSecrets = { kind: 'sftp', privateKey: `${(body.privateKey as string).trim()}\n` }
      return { place, push, prune: null }
    }
    case 'rest': {
      const url = httpUrl(body.url as string)
      if (!url) refusals.add(targetProblems.invalid_target_url, 'url')
      if (body.password !== undefined && body.username === undefined)
        refusals.add(targetProblems.backup_target_kind_fields, 'username', 'is required with `password`')
      const prune = pair(refusals, body.pruneUsername, body.prunePassword, 'pruneUsername', 'prunePassword')
      return {
        place: { kind: 'rest', url: url ?? '', username: body.username ?? null },
        push: { kind: 'rest', password: body.password ?? null },
        prune: prune
          ? ({ kind: 'rest', username: prune[0], password: prune[1] } satisfies PruneSecrets)
          : null,
      }
    }
    case 's3': {
      const endpoint = httpUrl(body.endpoint as string)
      if (!endpoint) refusals.add(targetProblems.invalid_target_url, 'endpoint')
      if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(body.bucket as string))
        refusals.add(targetProblems.invalid_bucket_name, 'bucket')
      const prefix = (body.prefix ?? '').replace(/^\/+|\/+$/g, '')
      if (prefix !== '' && !validPath(prefix, true))
        refusals.add(targetProblems.invalid_target_path, 'prefix')
      const prune = pair(
        refusals,
        body.pruneAccessKeyId,
        body.pruneSecretAccessKey,
        'pruneAccessKeyId',
        'pruneSecretAccessKey',
      )
      return {
        place: {
          kind: 's3',
          endpoint: endpoint ?? '',
          bucket: body.bucket as string,
          prefix,
          region: body.region ?? null,
          accessKeyId: body.accessKeyId as string,
        },
        push: { kind: 's3', secretAccessKey: body.secretAccessKey as string },
        prune: prune ? { kind: 's3', accessKeyId: prune[0], secretAccessKey: prune[1] } : null,
      }
    }
  }
}

/** Both of a pair of prune credentials, or neither. */
function pair(
  refusals: Refusals,
  first: string | undefined,
  second: string | undefined,
  firstName: string,
  secondName: string,
): [string, string] | null {
  if (first === undefined && second === undefined) return null
  if (first === undefined)
    refusals.add(targetProblems.backup_target_kind_fields, firstName, `is required with \`${secondName}\``)
  if (second === undefined)
    refusals.add(targetProblems.backup_target_kind_fields, secondName, `is required with \`${firstName}\``)
  return first !== undefined && second !== undefined ? [first, second] : null
}

/** The URL without a trailing slash when it is http(s) without credentials, query or fragment; else null. */
function httpUrl(text: string): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash)
    return null
  return url.href.replace(/\/+$/, '')
}

function validHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  if (isIP(bare) !== 0) return true
  return /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
    bare,
  )
}

function validPath(path: string, relativeOnly: boolean): boolean {
  if (relativeOnly && path.startsWith('/')) return false
  if (!/^[A-Za-z0-9._~+@/-]+$/.test(path)) return false
  return !path.split('/').some((part) => part === '..' || part === '.')
}
