// restic run on the panel's own machine against a site's (or a check's) repository: to check a target when it is
// added, and to prune a push-only target's repositories with the target's own credentials, which nodes never hold.
// Secrets go where restic reads them and nowhere else: the repository password and REST credentials through the
// environment (RESTIC_PASSWORD, RESTIC_REPOSITORY), S3 keys as AWS_* variables, an SFTP key in a 0600 file of a
// 0700 folder removed after the run. None is ever in argv (which `ps` shows) or in what a failure says.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RepositoryLocation, RepositorySpec } from './node/protocol.ts'

/** Where Debian's restic is. */
export const resticPath = '/usr/bin/restic'

/** Why restic could not do what it was asked, as the targets' refusals name it. */
export type ResticFailureCode =
  /** Nothing answered: wrong host or port, a firewall, the server down. */
  | 'unreachable'
  /** The server answered but did not take the credentials (an SFTP key, a REST password, an S3 key). */
  | 'login_failed'
  /** The SFTP server's host key is not one pinned for it. */
  | 'host_key_mismatch'
  /** Logged in, but refused what was asked (an append-only user's deletion, a read-only folder, a missing bucket). */
  | 'refused'
  /** The repository is there but the password does not open it. */
  | 'wrong_password'
  /** Anything else. */
  | 'failed'

/** A run of restic that failed; `message` says why in restic's words, stripped of anything secret. */
export class ResticFailure extends Error {
  constructor(
    readonly code: ResticFailureCode,
    message: string,
  ) {
    super(message)
    this.name = 'ResticFailure'
  }
}

/** What a finished run printed. */
export interface ResticOutput {
  readonly stdout: string
  readonly stderr: string
}

/**
 * Opens the repository, initialising it when there is none there yet: `created` says which. A password that does
 * not open an existing repository is `wrong_password`.
 */
export async function initOrOpen(spec: RepositorySpec, signal: AbortSignal): Promise<{ created: boolean }> {
  try {
    await runRestic(spec, ['cat', 'config'], signal)
    return { created: false }
  } catch (error) {
    // restic asks "Is there a repository…?" after any failure to read the config: only a plain absence is one.
    if (!(error instanceof ResticFailure) || error.code !== 'failed' || !missingRepository(error.message))
      throw error
  }
  await runRestic(spec, ['init'], signal)
  return { created: true }
}

/** Removes the snapshots and prunes the data only they used (`forget --prune`); none given is a plain prune. */
export async function forgetOnPanel(
  spec: RepositorySpec,
  snapshotIds: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  for (const id of snapshotIds)
    if (!/^[0-9a-f]{8,64}$/.test(id)) throw new ResticFailure('failed', `${id} is not a snapshot id`)
  await runRestic(spec, snapshotIds.length > 0 ? ['forget', '--prune', ...snapshotIds] : ['prune'], signal)
}

/**
 * Runs restic with `args` against the repository; throws {@link ResticFailure} when it exits non-zero or `signal`
 * ends it. `stdin` is written to its standard input (for `backup --stdin`).
 */
export async function runRestic(
  spec: RepositorySpec,
  args: readonly string[],
  signal: AbortSignal,
  stdin?: string,
): Promise<ResticOutput> {
  const folder = mkdtempSync(join(tmpdir(), 'plinth-restic-'))
  try {
    const invocation = resticInvocation(spec, folder)
    const child = Bun.spawn([resticPath, ...invocation.options, '--no-cache', ...args], {
      env: invocation.env,
      cwd: folder,
      stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const abort = () => child.kill('SIGTERM')
    signal.addEventListener('abort', abort, { once: true })
    try {
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ])
      if (signal.aborted) throw new ResticFailure('unreachable', 'restic did not finish in time')
      if (code !== 0) {
        let said = withoutSecrets(stderr.trim() || stdout.trim(), spec)
        // restic may exit before it relays what ssh said on stderr: then ssh is asked again, alone.
        if (spec.location.kind === 'sftp' && /unable to start the sftp session/.test(said))
          said = `${await sshSays(invocation.ssh ?? [], signal)}\n${said}`
        throw new ResticFailure(failureCode(said), said.slice(-1000))
      }
      return { stdout, stderr }
    } finally {
      signal.removeEventListener('abort', abort)
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** restic's options and environment for a repository, its files (an SFTP key, known hosts) written to `folder`. */
export function resticInvocation(
  spec: RepositorySpec,
  folder: string,
): { options: string[]; env: Record<string, string>; ssh?: string[] } {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    // ssh and restic look under HOME for their own files: nothing of root's is read or written.
    HOME: folder,
    RESTIC_PASSWORD: spec.password,
    RESTIC_REPOSITORY: repositoryUrl(spec.location),
  }
  const location = spec.location
  switch (location.kind) {
    case 'local':
      throw new ResticFailure('failed', 'a local repository is on its node, not on the panel')
    case 'sftp': {
      const key = join(folder, 'key')
      const knownHosts = join(folder, 'known_hosts')
      writeFileSync(
        key,
        location.privateKey.endsWith('\n') ? location.privateKey : `${location.privateKey}\n`,
        {
          mode: 0o600,
        },
      )
      writeFileSync(knownHosts, `${location.knownHosts.trim()}\n`, { mode: 0o600 })
      const ssh = sshCommand(location, key, knownHosts)
      return { options: ['-o', `sftp.command=${ssh.join(' ')}`], env, ssh }
    }
    case 'rest':
      return { options: [], env }
    case 's3':
      env.AWS_ACCESS_KEY_ID = location.accessKeyId
      env.AWS_SECRET_ACCESS_KEY = location.secretAccessKey
      return { options: location.region ? ['-o', `s3.region=${location.region}`] : [], env }
  }
}

/** The repository as restic names it: REST credentials are inside the URL, which only the environment carries. */
export function repositoryUrl(location: RepositoryLocation): string {
  switch (location.kind) {
    case 'local':
      return location.name
    case 'sftp': {
      // The connection is sftp.command's; restic takes only the path from here (`//abs` is absolute).
      const host = location.host.includes(':') ? `[${location.host}]` : location.host
      return `sftp://${location.username}@${host}:${location.port}/${location.path}`
    }
    case 'rest': {
      const url = new URL(location.url)
      // The setters leave `%` as it is: encoded first, a password holding `%41` stays that.
      if (location.username !== null) url.username = encodeURIComponent(location.username)
      if (location.password !== null) url.password = encodeURIComponent(location.password)
      return `rest:${url.href}`
    }
    case 's3':
      return `s3:${location.endpoint.replace(/\/+$/, '')}/${location.bucket}/${location.prefix.replace(/^\/+/, '')}`
  }
}

/** The ssh restic starts: this key only, these host keys only, no prompt, no configuration of the machine's. */
function sshCommand(
  location: RepositoryLocation & { kind: 'sftp' },
  key: string,
  knownHosts: string,
): string[] {
  return [
    'ssh',
    ...['-F', '/dev/null', '-i', key],
    ...['-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes'],
    ...['-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null'],
    ...['-o', 'ConnectTimeout=15', '-o', 'ServerAliveInterval=15'],
    ...['-p', String(location.port), '-l', location.username, location.host, '-s', 'sftp'],
  ]
}

/** What ssh says on stderr when it starts the SFTP session restic could not (its input closed: it ends at once). */
async function sshSays(argv: readonly string[], signal: AbortSignal): Promise<string> {
  if (argv.length === 0) return ''
  const child = Bun.spawn([...argv], { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
  const abort = () => child.kill('SIGTERM')
  signal.addEventListener('abort', abort, { once: true })
  try {
    const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited])
    return stderr.trim()
  } finally {
    signal.removeEventListener('abort', abort)
  }
}

/** Whether restic said there is no repository at the location (rather than that it could not reach it). */
function missingRepository(said: string): boolean {
  return /unable to open config file|Is there a repository at the following location\?|repository does not exist/i.test(
    said,
  )
}

/** What restic's (and ssh's, and the server's) words mean. */
function failureCode(said: string): ResticFailureCode {
  if (
    /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|host key .* (is not known|mismatch)/i.test(
      said,
    )
  )
    return 'host_key_mismatch'
  // S3 answers a HEAD (restic's first look at the config) with a bare 403 whatever was wrong with the key.
  if (
    /unable to open config file: Stat: Access Denied|Permission denied \(|401 Unauthorized|InvalidAccessKeyId|SignatureDoesNotMatch|Access Key Id you provided does not exist|AuthorizationHeaderMalformed/i.test(
      said,
    )
  )
    return 'login_failed'
  if (/wrong password or no key found/i.test(said)) return 'wrong_password'
  if (
    /connection refused|no route to host|Could not resolve hostname|no such host|i\/o timeout|Connection timed out|network is unreachable|connection reset|EOF$|unable to start the sftp session/i.test(
      said,
    )
  )
    return 'unreachable'
  if (
    /403 Forbidden|AccessDenied|Access Denied|NoSuchBucket|Permission denied|read-only file system|\(403\)/i.test(
      said,
    )
  )
    return 'refused'
  return 'failed'
}

/** restic's words without the repository's password or any credential the location holds. */
function withoutSecrets(said: string, spec: RepositorySpec): string {
  const location = spec.location
  const secrets = [
    spec.password,
    location.kind === 'rest' ? location.password : null,
    location.kind === 'rest' && location.password !== null ? encodeURIComponent(location.password) : null,
    location.kind === 's3' ? location.secretAccessKey : null,
  ].filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
  return secrets.reduce((text, secret) => text.replaceAll(secret, '***'), said)
}
