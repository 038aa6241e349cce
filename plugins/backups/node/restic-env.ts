// How restic reaches a site's repository, per kind of target: the repository and every credential through the
// environment (never argv, where any user of the node reads them in /proc), an SFTP login's key and the server's
// host keys in files of root's made for the run and removed after it.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { hasControlCharacter } from './control-characters.ts'
import type { RepositoryLocation, RepositorySpec } from './protocol.ts'
import { RunFailure } from './run-failure.ts'

/** What restic runs with for one repository. */
export interface ResticAccess {
  /** Its whole environment (`RESTIC_REPOSITORY`, `RESTIC_PASSWORD`, the target's credentials, cache and temp). */
  readonly env: Readonly<Record<string, string>>
  /** Options before the command (`-o sftp.command=…`). */
  readonly options: readonly string[]
  /** What no message may carry: the password and the target's credentials. */
  readonly secrets: readonly string[]
  /** For a local repository, its folder; null for the others. */
  readonly localPath: string | null
  /** Removes what was written for the run (an SFTP key). */
  release(): Promise<void>
}

/** The name of a `local` repository (the site's id): one folder under the repositories', never a path. */
export const localName = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
const hostName = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])$/
/** An IPv6 address as targets keep it, without brackets (`::1`, `2001:db8::7`). */
const bareIpv6 = /^[0-9A-Fa-f:.]{2,45}$/
const loginName = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/
const bucketName = /^[a-z0-9][a-z0-9.-]{1,62}$/

const refuse = (what: string) => new RunFailure('failed', `The repository's ${what} is not acceptable.`)

/** Text without NUL, newline or other control characters, at most `max` characters. */
function plain(value: string, what: string, max = 1024): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || hasControlCharacter(value))
    throw refuse(what)
  return value
}

/** `value` as an http(s) URL, or refused as the repository's `what`. */
function httpUrl(value: string, what: string): URL {
  let url: URL
  try {
    url = new URL(plain(value, what))
  } catch {
    throw refuse(what)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(what)
  return url
}

/** A path quoted for restic's own splitting of `sftp.command` (it honours double quotes). */
function quoted(path: string): string {
  if (path.includes('"'))
    throw new RunFailure('failed', 'The node’s data directory has a name restic cannot use.')
  return /\s/.test(path) ? `"${path}"` : path
}

/** Where local repositories are, under the service's folder. */
export const repositoriesDir = (dataDir: string) => join(dataDir, 'repositories')

/** The environment and options restic opens `spec` with; `release` after the run. */
export async function resticAccess(spec: RepositorySpec, dataDir: string): Promise<ResticAccess> {
  const password = spec.password
  if (typeof password !== 'string' || password.length === 0 || password.length > 4096)
    throw refuse('password')
  const base: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    LANG: 'C.UTF-8',
    HOME: dataDir,
    TMPDIR: join(dataDir, 'tmp'),
    RESTIC_CACHE_DIR: join(dataDir, 'cache'),
    RESTIC_PASSWORD: password,
  }
  await mkdir(base.TMPDIR as string, { recursive: true, mode: 0o700 })
  const location = spec.location as RepositoryLocation
  switch (location?.kind) {
    case 'local': {
      if (!localName.test(location.name)) throw refuse('name')
      const path = join(repositoriesDir(dataDir), location.name)
      return {
        env: { ...base, RESTIC_REPOSITORY: path },
        options: [],
        secrets: [password],
        localPath: path,
        release: async () => {},
      }
    }
    case 'sftp': {
      // Targets keep an IPv6 address bare; restic's repository string wants it in brackets, ssh without.
      const ipv6 = location.host.includes(':')
      if (ipv6 ? !bareIpv6.test(location.host.replace(/^\[(.*)\]$/, '$1')) : !hostName.test(location.host))
        throw refuse('host')
      const bare = location.host.replace(/^\[(.*)\]$/, '$1')
      const repositoryHost = ipv6 ? `[${bare}]` : bare
      if (!loginName.test(location.username)) throw refuse('username')
      if (!Number.isInteger(location.port) || location.port < 1 || location.port > 65_535)
        throw refuse('port')
      const path = plain(location.path, 'path')
      const key = location.privateKey
      if (typeof key !== 'string' || key.length > 16_384 || !key.includes('PRIVATE KEY')) throw refuse('key')
      const knownHosts = location.knownHosts
      if (
        typeof knownHosts !== 'string' ||
        knownHosts.length > 65_536 ||
        knownHosts.includes('\0') ||
        !knownHosts.trim()
      )
        throw refuse('host keys')
      const keys = join(dataDir, 'keys')
      await mkdir(keys, { recursive: true, mode: 0o700 })
      const folder = await mkdtemp(join(keys, 'run-'))
      const keyFile = join(folder, 'id')
      const hostsFile = join(folder, 'known_hosts')
      await writeFile(keyFile, key.endsWith('\n') ? key : `${key}\n`, { mode: 0o600 })
      await writeFile(hostsFile, knownHosts.endsWith('\n') ? knownHosts : `${knownHosts}\n`, { mode: 0o600 })
      const ssh = [
        'ssh',
        '-i',
        quoted(keyFile),
        '-F',
        '/dev/null',
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        `UserKnownHostsFile=${quoted(hostsFile)}`,
        '-o',
        'GlobalKnownHostsFile=/dev/null',
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        'BatchMode=yes',
        '-o',
        'ConnectTimeout=20',
        '-o',
        'ServerAliveInterval=30',
        '-p',
        String(location.port),
        `${location.username}@${bare}`,
        '-s',
        'sftp',
      ].join(' ')
      return {
        env: { ...base, RESTIC_REPOSITORY: `sftp:${location.username}@${repositoryHost}:${path}` },
        options: ['-o', `sftp.command=${ssh}`],
        secrets: [password, key],
        localPath: null,
        release: () => rm(folder, { recursive: true, force: true }),
      }
    }
    case 'rest': {
      const url = httpUrl(location.url, 'URL')
      if (location.username) url.username = encodeURIComponent(location.username)
      if (location.password) url.password = encodeURIComponent(location.password)
      const secrets = [password, ...(location.password ? [location.password, url.password] : [])]
      return {
        env: { ...base, RESTIC_REPOSITORY: `rest:${url.href}` },
        options: [],
        secrets,
        localPath: null,
        release: async () => {},
      }
    }
    case 's3': {
      const endpoint = httpUrl(location.endpoint, 'endpoint')
      if (!bucketName.test(location.bucket)) throw refuse('bucket')
      const prefix = location.prefix ? plain(location.prefix, 'prefix').replace(/^\/+|\/+$/g, '') : ''
      if (prefix.split('/').some((part) => part === '..' || part === '.')) throw refuse('prefix')
      const env: Record<string, string> = {
        ...base,
        RESTIC_REPOSITORY: `s3:${endpoint.origin}/${location.bucket}${prefix ? `/${prefix}` : ''}`,
        AWS_ACCESS_KEY_ID: plain(location.accessKeyId, 'access key'),
        AWS_SECRET_ACCESS_KEY: plain(location.secretAccessKey, 'secret key'),
      }
      if (location.region) env.AWS_DEFAULT_REGION = plain(location.region, 'region', 64)
      return {
        env,
        options: [],
        secrets: [password, location.secretAccessKey],
        localPath: null,
        release: async () => {},
      }
    }
    default:
      throw refuse('kind')
  }
}
