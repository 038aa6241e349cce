// restic's REST backend protocol (v1 and v2) over a folder, for the backups tests: the real `rest-server` is not a
// Debian package, and only Debian's and npm's packages reach this project's machines. Repositories may sit at any
// path (`/<siteId>/config`), laid out as restic lays out a local repository (so `restic -r <folder>/<siteId>` opens
// one too); HTTP basic auth with users who may be append-only (no DELETE but of locks, no overwrite), as
// `rest-server --append-only` or a `--private-repos` setup's backup-only user.

import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, temporaryDataDir } from '../../../hosts/testing/index.ts'

/** A login of the server. */
export interface RestUser {
  readonly username: string
  readonly password: string
  /** Whether it may only add: no DELETE but of locks, no overwriting a file. Default false. */
  readonly appendOnly?: boolean
}

/** A running REST server. */
export interface RestPeer {
  /** `http://127.0.0.1:<port>` (no trailing slash, no credentials). */
  readonly url: string
  readonly port: number
  /** The folder repositories are kept in. */
  readonly folder: string
  /** Requests it answered, newest last (method, path, user, status): what a test asserts on. */
  readonly requests: readonly { method: string; path: string; user: string | null; status: number }[]
  /** Stops listening: connections are refused. */
  stop(): Promise<void>
}

const fileTypes = new Set(['keys', 'locks', 'snapshots', 'data', 'index'])
const v2 = 'application/vnd.x.restic.rest.v2'

/** Where a request points: a repository's config, a type's listing, or one file. */
type Target =
  | { readonly what: 'repository'; readonly repo: string }
  | { readonly what: 'config'; readonly repo: string }
  | { readonly what: 'list'; readonly repo: string; readonly type: string }
  | { readonly what: 'file'; readonly repo: string; readonly type: string; readonly name: string }

/**
 * Serves restic's REST protocol on a free port of 127.0.0.1 over a folder.
 * @example const peer = await startRestServer({ users: [{ username: 'push', password: 'p', appendOnly: true }] })
 */
export async function startRestServer(options: {
  readonly users: readonly RestUser[]
  /** Default: a fresh temporary folder, removed when the test process exits. */
  readonly folder?: string
}): Promise<RestPeer> {
  const { users, folder = temporaryDataDir() } = options
  mkdirSync(folder, { recursive: true })
  const requests: { method: string; path: string; user: string | null; status: number }[] = []
  const port = freePort()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    maxRequestBodySize: 256 * 1024 * 1024,
    async fetch(request) {
      const path = decodeURIComponent(new URL(request.url).pathname)
      const user = userOf(users, request.headers.get('authorization'))
      const response = user
        ? await answer(folder, user, request, path)
        : new Response('unauthorized\n', {
            status: 401,
            headers: { 'www-authenticate': 'Basic realm="restic"' },
          })
      requests.push({ method: request.method, path, user: user?.username ?? null, status: response.status })
      return response
    },
  })
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    folder,
    requests,
    async stop() {
      await server.stop(true)
    },
  }
}

function userOf(users: readonly RestUser[], header: string | null): RestUser | null {
  if (!header?.startsWith('Basic ')) return null
  const decoded = Buffer.from(header.slice(6), 'base64').toString()
  const colon = decoded.indexOf(':')
  const [username, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)]
  return users.find((user) => user.username === username && user.password === password) ?? null
}

/** The request's target, or null for a path that names nothing (`..`, a type-less file). */
function targetOf(path: string): Target | null {
  const parts = path.split('/').slice(1)
  if (parts.some((part) => part === '..' || part === '.')) return null
  const trailing = parts.at(-1) === ''
  const segments = parts.filter((part) => part !== '')
  const repo = (items: string[]) => items.join('/')
  if (segments.at(-1) === 'config' && !trailing) return { what: 'config', repo: repo(segments.slice(0, -1)) }
  const last = segments.at(-1)
  if (trailing && last && fileTypes.has(last))
    return { what: 'list', repo: repo(segments.slice(0, -1)), type: last }
  const type = segments.at(-2)
  if (!trailing && type && fileTypes.has(type) && /^[0-9a-f]{64}$/.test(last ?? ''))
    return { what: 'file', repo: repo(segments.slice(0, -2)), type, name: last as string }
  return { what: 'repository', repo: repo(segments) }
}

async function answer(folder: string, user: RestUser, request: Request, path: string): Promise<Response> {
  const target = targetOf(path)
  if (!target) return status(400)
  const root = join(folder, target.repo)
  const method = request.method
  if (target.what === 'repository') {
    if (method !== 'POST' || new URL(request.url).searchParams.get('create') !== 'true') return status(405)
    for (const type of fileTypes) mkdirSync(join(root, type), { recursive: true })
    for (let byte = 0; byte < 256; byte++)
      mkdirSync(join(root, 'data', byte.toString(16).padStart(2, '0')), { recursive: true })
    return status(200)
  }
  if (target.what === 'list') {
    if (method !== 'GET') return status(405)
    return list(root, target.type, (request.headers.get('accept') ?? '').includes(v2))
  }
  const file =
    target.what === 'config'
      ? join(root, 'config')
      : target.type === 'data'
        ? join(root, 'data', target.name.slice(0, 2), target.name)
        : join(root, target.type, target.name)
  const type = target.what === 'config' ? 'config' : target.type
  switch (method) {
    case 'HEAD': {
      if (!existsSync(file)) return status(404)
      return new Response(null, { headers: { 'content-length': String(statSync(file).size) } })
    }
    case 'GET':
      return read(file, request.headers.get('range'))
    case 'POST': {
      if (!existsSync(root)) return status(404)
      // Files are written once (restic names them by their hash): an append-only user cannot replace one.
      if (existsSync(file) && user.appendOnly) return status(403)
      const body = new Uint8Array(await request.arrayBuffer())
      if (
        type !== 'config' &&
        createHash('sha256').update(body).digest('hex') !== (target as { name: string }).name
      )
        return status(400)
      mkdirSync(join(file, '..'), { recursive: true })
      const temporary = `${file}.${crypto.randomUUID()}.tmp`
      writeFileSync(temporary, body)
      renameSync(temporary, file)
      return status(200)
    }
    case 'DELETE': {
      if (user.appendOnly && type !== 'locks') return status(403)
      if (!existsSync(file)) return status(404)
      rmSync(file)
      return status(200)
    }
    default:
      return status(405)
  }
}

function list(root: string, type: string, version2: boolean): Response {
  const folder = join(root, type)
  if (!existsSync(folder)) return status(404)
  const files: { name: string; size: number }[] = []
  const add = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && type === 'data') add(join(dir, entry.name))
      else if (entry.isFile() && !entry.name.endsWith('.tmp'))
        files.push({ name: entry.name, size: statSync(join(dir, entry.name)).size })
    }
  }
  add(folder)
  return Response.json(version2 ? files : files.map((file) => file.name), {
    headers: { 'content-type': version2 ? v2 : 'application/vnd.x.restic.rest.v1' },
  })
}

function read(file: string, range: string | null): Response {
  if (!existsSync(file)) return status(404)
  const size = statSync(file).size
  const whole = Bun.file(file)
  if (!range) return new Response(whole, { headers: { 'content-length': String(size) } })
  const match = /^bytes=(\d+)-(\d*)$/.exec(range)
  if (!match) return status(416)
  const start = Number(match[1])
  const end = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1
  if (start >= size || end < start)
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } })
  return new Response(whole.slice(start, end + 1), {
    status: 206,
    headers: { 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) },
  })
}

function status(code: number): Response {
  return new Response(code < 300 ? null : `${code}\n`, { status: code })
}
