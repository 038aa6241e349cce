// Commands and shells in a real site served by the local node (a Unix user, nginx, PHP-FPM): exec as the site's
// user in its sandbox (another site's files and the panel's data invisible, /usr read-only), output lines over the
// job's Server-Sent Events, timeouts and truncation; the shell over a real WebSocket (typing, resize, exit, idle,
// single-use token, Origin, recording); suspension, tenancy and the audit log.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  freePort,
  type RunningServer,
  removeNodeLeftovers,
  servePanel,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { shellPlugin } from './index.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-shell-'))
const sitesDir = join(folder, 'sites')
const panelDir = join(folder, 'panel')
chmodSync(folder, 0o711)
let tp: TestPanel
let server: RunningServer
let token: string
let base: string

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would.
type Json = Record<string, any>

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: panelDir,
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin(),
      shellPlugin({
        idleTimeoutMs: 1500,
        sessionsPerSite: 3,
        allowedOrigins: ['https://portal.example'],
        accessCheckMs: 200,
      }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  server = servePanel(tp.panel, {
    hostname: '127.0.0.1',
    port: 0,
    log: { debug() {}, info() {}, warn() {}, error() {} } as never,
  })
  base = server.url.toString().replace(/\/$/, '')
  tp.panel.start()
  token = await tp.token()
}, 60_000)

afterAll(async () => {
  await server?.stop()
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

async function call(method: string, path: string, body?: unknown, as = token): Promise<Response> {
  return fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${as}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}
async function json(response: Response, status: number): Promise<Json> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return JSON.parse(text) as Json
}
async function until<T>(what: string, probe: () => Promise<T | null>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const got = await probe()
    if (got !== null) return got
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}
async function newSite(customerId: string, domain: string): Promise<Json> {
  const site = await json(
    await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
    201,
  )
  return until(`site ${domain}`, async () => {
    const now = await json(await call('GET', `/sites/${site.id}`), 200)
    if (now.status === 'failed') throw new Error(`provisioning failed: ${JSON.stringify(now)}`)
    return now.status === 'active' ? now : null
  })
}
async function exec(siteId: string, body: Json, as = token): Promise<Json> {
  const started = await json(await call('POST', `/sites/${siteId}/exec`, body, as), 202)
  return until('the exec job', async () => {
    const job = await json(await call('GET', `/jobs/${started.jobId}`, undefined, as), 200)
    return job.status === 'succeeded' || job.status === 'failed' ? job : null
  })
}
const homeOf = (siteId: string) => join(sitesDir, 'sites', siteId)

let customerId: string
let site: Json
let other: Json

describe('exec', () => {
  beforeAll(async () => {
    customerId = (await json(await call('POST', '/customers', { name: 'Shell Co' }), 201)).id
    const otherCustomer = (await json(await call('POST', '/customers', { name: 'Other Co' }), 201)).id
    ;[site, other] = await Promise.all([
      newSite(customerId, 'shell.example.test'),
      newSite(otherCustomer, 'other.example.test'),
    ])
    writeFileSync(join(homeOf(other.id), 'htdocs', 'secret.txt'), 'the other site’s secret')
  }, 120_000)

  test('runs as the site’s user in /htdocs, with the exit code and output in the result', async () => {
    const state = JSON.parse(readFileSync(join(homeOf(site.id), 'state.json'), 'utf8')) as Json
    const job = await exec(site.id, { argv: ['sh', '-c', 'id -un; pwd; echo oops >&2; exit 3'] })
    expect(job.status).toBe('succeeded')
    expect(job.result).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      stdout: `${state.unixUser}\n/htdocs\n`,
      stderr: 'oops\n',
      truncated: false,
    })
    const inTmp = await exec(site.id, { argv: ['pwd'], cwd: '/tmp/./' })
    expect(inTmp.result.stdout).toBe('/tmp\n')
  })

  test('sees only the site: other sites and the panel’s data are invisible, /usr read-only, htdocs writable', async () => {
    const script = [
      `test -e ${homeOf(other.id)} && echo other-home-visible`,
      // Not the runtime's data dir itself: here it is under /tmp, and the site's PHP-FPM sandbox (its /tmp the site's
      // tmp/) leaves in that tmp/ the empty mount points of the paths it binds under the data dir.
      `test -e ${join(sitesDir, 'nginx')} && echo node-config-visible`,
      `test -e ${panelDir} && echo panel-visible`,
      'test -e /state.json && echo state-visible',
      'cat /etc/passwd | wc -l',
      'touch /usr/bin/planted 2>/dev/null && echo usr-writable',
      'touch /logs/planted 2>/dev/null && echo logs-writable',
      'echo written > /htdocs/from-exec.txt && echo htdocs-writable',
      'echo t > /tmp/t && echo tmp-writable',
      'ls / | tr "\\n" " "; echo',
    ].join('; ')
    const job = await exec(site.id, { argv: ['bash', '-c', script] })
    expect(job.result.stdout).toBe(
      '3\nhtdocs-writable\ntmp-writable\nbin dev etc htdocs lib lib64 logs proc sbin tmp usr \n',
    )
    expect(readFileSync(join(homeOf(site.id), 'htdocs', 'from-exec.txt'), 'utf8')).toBe('written\n')
    const peek = await exec(site.id, { argv: ['cat', join(homeOf(other.id), 'htdocs', 'secret.txt')] })
    expect(peek.result.exitCode).toBe(1)
    expect(peek.result.stdout).toBe('')
  })

  test('a link the site’s user plants where the sandbox files once lived is never written through', async () => {
    // The sandbox's /etc/passwd and /etc/group were kept at /tmp/plinth-sandbox/<site>, which the site's PHP (its
    // user, the node's /tmp) could make first, with <site> a link to /etc: root then wrote over /etc/passwd.
    const old = join(tmpdir(), 'plinth-sandbox')
    rmSync(old, { recursive: true, force: true })
    const target = mkdtempSync(join(folder, 'etc-'))
    chmodSync(target, 0o777)
    const owner = statSync(join(homeOf(site.id), 'htdocs'))
    const planted = Bun.spawnSync([
      'setpriv',
      `--reuid=${owner.uid}`,
      `--regid=${owner.gid}`,
      '--clear-groups',
      '--',
      'sh',
      '-c',
      `mkdir -p ${old} && ln -s ${target} ${old}/${site.id}`,
    ])
    expect(planted.exitCode).toBe(0)
    try {
      const job = await exec(site.id, { argv: ['sh', '-c', 'id -un; wc -l < /etc/passwd'] })
      const state = JSON.parse(readFileSync(join(homeOf(site.id), 'state.json'), 'utf8')) as Json
      expect(job.result.stdout).toBe(`${state.unixUser}\n3\n`)
      expect(readdirSync(target)).toEqual([])
      expect(lstatSync(join(old, site.id)).isSymbolicLink()).toBe(true)
      // Nothing of the run is left behind in the shared /tmp.
      const ofThisSite = (name: string) => {
        try {
          return readFileSync(join(tmpdir(), name, 'passwd'), 'utf8').includes(`Site ${site.id}:`)
        } catch {
          return false
        }
      }
      await until('the run’s files removed', async () =>
        readdirSync(tmpdir()).some((name) => name.startsWith('plinth-sandbox-') && ofThisSite(name))
          ? null
          : true,
      )
    } finally {
      rmSync(old, { recursive: true, force: true })
    }
  })

  test('streams output lines over the job’s Server-Sent Events before its end', async () => {
    const started = await json(
      await call('POST', `/sites/${site.id}/exec`, {
        argv: ['bash', '-c', 'for i in 1 2 3; do echo line $i; sleep 0.2; done; echo bad >&2'],
      }),
      202,
    )
    const response = await call('GET', `/jobs/${started.jobId}/events`)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const text = await response.text()
    const events = text
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => ({
        event: /event: (\w+)/.exec(block)?.[1],
        data: JSON.parse(/data: (.*)/.exec(block)?.[1] ?? 'null') as Json,
      }))
    const output = events.filter((e) => e.event === 'output').map((e) => [e.data.stream, e.data.line])
    expect(output).toEqual([
      ['stdout', 'line 1'],
      ['stdout', 'line 2'],
      ['stdout', 'line 3'],
      ['stderr', 'bad'],
    ])
    expect(events.at(-1)?.event).toBe('end')
    expect(events.at(-1)?.data.result.exitCode).toBe(0)
  })

  test('output holding NUL and control characters streams as lines and stays whole in the result', async () => {
    const started = await json(
      await call('POST', `/sites/${site.id}/exec`, {
        argv: ['printf', 'a\\0b\\n\\033[31mred\\001\\n'],
      }),
      202,
    )
    const text = await (await call('GET', `/jobs/${started.jobId}/events`)).text()
    const events = text
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => ({
        event: /event: (\w+)/.exec(block)?.[1],
        data: JSON.parse(/data: (.*)/.exec(block)?.[1] ?? 'null') as Json,
      }))
    // A NUL is shown as U+FFFD (the panel keeps no NUL in text), as on an agent's node; the other characters as
    // they came.
    expect(events.filter((e) => e.event === 'output').map((e) => e.data.line)).toEqual([
      'a\uFFFDb',
      '\u001b[31mred\u0001',
    ])
    expect(events.at(-1)?.data.result.stdout).toBe('a\uFFFDb\n\u001b[31mred\u0001\n')
  })

  test('a job’s event stream stays open through a quiet spell longer than Bun’s default idle timeout', async () => {
    const started = await json(
      await call('POST', `/sites/${site.id}/exec`, { argv: ['bash', '-c', 'sleep 12; echo woke'] }),
      202,
    )
    const text = await (await call('GET', `/jobs/${started.jobId}/events`)).text()
    expect(text).toContain('woke')
    expect(text).toContain('event: end')
  }, 60_000)

  test('kills a command at its timeout, and cuts output past 1 MiB with truncated', async () => {
    const slow = await exec(site.id, { argv: ['sleep', '30'], timeoutSeconds: 1 })
    expect(slow.result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true })
    expect(slow.result.durationMs).toBeLessThan(5000)
    const loud = await exec(site.id, { argv: ['head', '-c', '3000000', '/dev/zero'] })
    expect(loud.result.truncated).toBe(true)
    expect(loud.result.stdout.length).toBe(1024 * 1024)
  })

  test('a customer’s long commands never hold the other jobs’ workers; cancelling kills one that traps TERM', async () => {
    // Four long commands, as many as the panel's shared pool has workers: they run in the exec lane.
    const script = (i: number) => `trap "" TERM; while :; do echo tick >> /tmp/ticks-${i}; sleep 0.1; done`
    const started = await Promise.all(
      [1, 2, 3, 4].map(async (i) =>
        json(
          await call('POST', `/sites/${site.id}/exec`, {
            argv: ['bash', '-c', script(i)],
            timeoutSeconds: 600,
          }),
          202,
        ),
      ),
    )
    const statuses = async () =>
      Promise.all(
        started.map(
          async (one) => (await json(await call('GET', `/jobs/${one.jobId}`), 200)).status as string,
        ),
      )
    await until('the four commands running', async () =>
      (await statuses()).every((status) => status === 'running') ? true : null,
    )
    await until('their output', async () =>
      [1, 2, 3, 4].every((i) => existsSync(join(homeOf(site.id), 'tmp', `ticks-${i}`))) ? true : null,
    )
    // Another job (provisioning a site) runs meanwhile.
    const third = await newSite(customerId, 'third.example.test')
    expect(third.status).toBe('active')
    expect(await statuses()).toEqual(['running', 'running', 'running', 'running'])
    for (const one of started)
      expect((await call('POST', `/jobs/${one.jobId}/cancel`)).status).toBeLessThan(300)
    await until(
      'the commands cancelled',
      async () => ((await statuses()).every((status) => status === 'cancelled') ? true : null),
      10_000,
    )
    // Killed, not merely forgotten: their output stops growing.
    const sizes = () => [1, 2, 3, 4].map((i) => statSync(join(homeOf(site.id), 'tmp', `ticks-${i}`)).size)
    const before = sizes()
    await Bun.sleep(800)
    expect(sizes()).toEqual(before)
  }, 120_000)

  test('refuses bad argv and working directories with codes, a missing directory in the job', async () => {
    // NUL is refused by the kernel for every text field; an empty program by the plugin.
    await expectProblem(
      await call('POST', `/sites/${site.id}/exec`, { argv: ['ls', 'a\u0000b'] }),
      422,
      'validation_failed',
    )
    await expectProblem(await call('POST', `/sites/${site.id}/exec`, { argv: [''] }), 422, 'invalid_argv')
    await expectProblem(await call('POST', `/sites/${site.id}/exec`, { argv: [] }), 422, 'validation_failed')
    await expectProblem(
      await call('POST', `/sites/${site.id}/exec`, { argv: ['ls'], cwd: '/htdocs/../../etc' }),
      422,
      'invalid_working_directory',
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/exec`, { argv: ['ls'], cwd: '/etc' }),
      422,
      'invalid_working_directory',
    )
    const missing = await exec(site.id, { argv: ['ls'], cwd: '/htdocs/nowhere' })
    expect(missing.error.code).toBe('working_directory_missing')
  })

  test('another customer’s site is 404 and the audit log names the program, not the arguments', async () => {
    const limited = await tp.token({ customerId })
    await expectProblem(
      await call('POST', `/sites/${other.id}/exec`, { argv: ['id'] }, limited),
      404,
      'not_found',
    )
    await expectProblem(
      await call('POST', `/sites/${other.id}/shell-sessions`, undefined, limited),
      404,
      'not_found',
    )
    await exec(site.id, { argv: ['echo', 'hunter2'] })
    const audit = await json(await call('GET', `/audit?subject=${site.id}`), 200)
    const entry = (audit.items as Json[]).find(
      (item) => item.action === 'site.exec' && item.details.program === 'echo',
    )
    expect(entry?.details).toMatchObject({
      program: 'echo',
      arguments: 1,
      cwd: '/htdocs',
      timeoutSeconds: 60,
    })
    expect(JSON.stringify(audit)).not.toContain('hunter2')
  })
})

/** A shell session's socket, with its frames collected. */
async function connect(siteId: string, options: { origin?: string; session?: Json; as?: string } = {}) {
  const session =
    options.session ??
    (await json(await call('POST', `/sites/${siteId}/shell-sessions`, undefined, options.as), 201))
  const url = `${session.url}?token=${session.token}`
  const frames: Json[] = []
  const socket = new WebSocket(
    url,
    options.origin ? ({ headers: { origin: options.origin } } as never) : undefined,
  )
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
  )
  socket.addEventListener('message', (event) => frames.push(JSON.parse(String(event.data)) as Json))
  const opened = await new Promise<boolean>((resolve) => {
    socket.addEventListener('open', () => resolve(true))
    socket.addEventListener('error', () => resolve(false))
  })
  const output = () =>
    frames
      .filter((frame) => frame.type === 'output')
      .map((frame) => frame.data)
      .join('')
  return { session, socket, frames, closed, opened, output }
}

describe('the shell', () => {
  test('types, resizes and exits over a WebSocket, and its recording replays what it showed', async () => {
    const shell = await connect(site.id)
    expect(shell.opened).toBe(true)
    shell.socket.send(JSON.stringify({ type: 'stdin', data: 'echo hi from $(id -un) in $(pwd)\r' }))
    await until(
      'the echo',
      async () => (/hi from s_\S+ in \/htdocs/.test(shell.output()) ? true : null),
      10_000,
    )
    shell.socket.send(JSON.stringify({ type: 'resize', cols: 123, rows: 45 }))
    shell.socket.send(JSON.stringify({ type: 'stdin', data: 'stty size; ls /\r' }))
    await until('the new size', async () => (shell.output().includes('45 123') ? true : null), 10_000)
    shell.socket.send('not json')
    shell.socket.send(JSON.stringify({ type: 'stdin', data: 'exit 7\r' }))
    const closed = await shell.closed
    expect(closed.code).toBe(1000)
    expect(shell.frames.find((frame) => frame.type === 'error')).toBeDefined()
    expect(shell.frames.at(-1)).toEqual({ type: 'exit', code: 7, reason: 'exited' })
    const session = await until('the session’s end', async () => {
      const now = await json(await call('GET', `/sites/${site.id}/shell-sessions/${shell.session.id}`), 200)
      return now.status === 'ended' ? now : null
    })
    expect(session).toMatchObject({ endReason: 'exited', exitCode: 7 })
    expect(session.durationSeconds).toBeGreaterThan(0)
    const recording = await call('GET', `/sites/${site.id}/shell-sessions/${shell.session.id}/recording`)
    expect(recording.headers.get('content-type')).toContain('application/x-asciicast')
    // Tagged as the document says (a stream was not, before), and never kept by a cache.
    expect(recording.headers.get('cache-control')).toBe('no-store')
    const etag = recording.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    const unchanged = await fetch(
      `${base}/api/v1/sites/${site.id}/shell-sessions/${shell.session.id}/recording`,
      {
        headers: { authorization: `Bearer ${token}`, 'if-none-match': etag },
      },
    )
    expect(unchanged.status).toBe(304)
    const lines = (await recording.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ version: 2, width: 80, height: 24 })
    expect(lines.some((line) => Array.isArray(line) && line[1] === 'r' && line[2] === '123x45')).toBe(true)
    expect(
      lines
        .filter((line) => Array.isArray(line) && line[1] === 'o')
        .map((line) => line[2])
        .join(''),
    ).toContain('hi from s_')
    const listed = await json(await call('GET', `/sites/${site.id}/shell-sessions`), 200)
    expect((listed.items as Json[]).map((item) => item.id)).toContain(shell.session.id)
    const audit = await json(await call('GET', `/audit?subject=${shell.session.id}`), 200)
    const actions = (audit.items as Json[]).map((item) => item.action)
    expect(actions).toContain('shell_session.start')
    const end = (audit.items as Json[]).find((item) => item.action === 'shell_session.end')
    expect(end?.details).toMatchObject({ endReason: 'exited', exitCode: 7 })
  }, 30_000)

  test('a token connects once; a foreign Origin and a plain request are refused without spending it', async () => {
    const session = await json(await call('POST', `/sites/${site.id}/shell-sessions`), 201)
    const plain = await fetch(`${session.url.replace(/^ws/, 'http')}?token=${session.token}`)
    await expectProblem(plain, 426, 'websocket_required')
    const foreign = await connect(site.id, { session, origin: 'https://evil.example' })
    expect(foreign.opened).toBe(false)
    const allowed = await connect(site.id, { session, origin: 'https://portal.example' })
    expect(allowed.opened).toBe(true)
    const again = await connect(site.id, { session })
    expect(again.opened).toBe(false)
    const refused = await fetch(`${session.url.replace(/^ws/, 'http')}?token=${session.token}`, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    })
    await expectProblem(refused, 403, 'shell_token_invalid')
    const unspent = await json(await call('POST', `/sites/${site.id}/shell-sessions`), 201)
    const badOrigin = await fetch(`${unspent.url.replace(/^ws/, 'http')}?token=${unspent.token}`, {
      headers: { upgrade: 'websocket', origin: 'https://evil.example' },
    })
    await expectProblem(badOrigin, 403, 'origin_not_allowed')
    allowed.socket.close()
    await allowed.closed
  }, 30_000)

  test('a shell ends access_revoked once its token is revoked, its user disabled or taken off the team', async () => {
    const member = async (email: string) => {
      const user = await createTestUser(tp.panel.store.db, { email, staffRole: null })
      await json(await call('POST', `/customers/${customerId}/members`, { email, role: 'developer' }), 201)
      return { user, token: await tp.token({ user, customerId }) }
    }
    const revokedToken = await member('revoked-token@shell.test')
    const live = await connect(site.id, { as: revokedToken.token })
    expect(live.opened).toBe(true)
    const tokens = await json(await call('GET', `/users/${revokedToken.user.id}/api-tokens`), 200)
    const revoked = await call('DELETE', `/users/${revokedToken.user.id}/api-tokens/${tokens.items[0].id}`)
    expect(revoked.status).toBeLessThan(300)
    expect((await live.closed).reason).toBe('access_revoked')
    expect(live.frames.at(-1)).toMatchObject({ type: 'exit', reason: 'access_revoked' })
    const audit = await json(await call('GET', `/audit?subject=${live.session.id}`), 200)
    const end = (audit.items as Json[]).find((item) => item.action === 'shell_session.end')
    expect(end?.details).toMatchObject({ endReason: 'access_revoked' })

    const disabledUser = await member('disabled@shell.test')
    const second = await connect(site.id, { as: disabledUser.token })
    expect(second.opened).toBe(true)
    expect((await call('POST', `/users/${disabledUser.user.id}/disable`)).status).toBe(200)
    expect((await second.closed).reason).toBe('access_revoked')

    // A session asked for before its member was taken off the team does not connect afterwards.
    const removed = await member('removed@shell.test')
    const pending = await json(
      await call('POST', `/sites/${site.id}/shell-sessions`, undefined, removed.token),
      201,
    )
    const gone = await call('DELETE', `/customers/${customerId}/members/${removed.user.id}`)
    expect(gone.status).toBeLessThan(300)
    const late = await fetch(`${pending.url.replace(/^ws/, 'http')}?token=${pending.token}`, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    })
    await expectProblem(late, 403, 'shell_access_revoked')
    const ended = await json(await call('GET', `/sites/${site.id}/shell-sessions/${pending.id}`), 200)
    expect(ended).toMatchObject({ status: 'ended', endReason: 'access_revoked' })
  }, 30_000)

  test('input sent faster than the shell takes it ends the session input_overflow (1009), not the panel’s memory', async () => {
    const shell = await connect(site.id)
    expect(shell.opened).toBe(true)
    const frame = new Uint8Array(500 * 1024).fill(0x61)
    for (let i = 0; i < 60; i++) shell.socket.send(frame)
    const closed = await shell.closed
    expect(closed).toMatchObject({ code: 1009, reason: 'input_overflow' })
    expect(shell.frames.at(-1)).toMatchObject({ type: 'exit', reason: 'input_overflow' })
  }, 30_000)

  test('ends an idle session, and caps the sessions of a site', async () => {
    const idle = await connect(site.id)
    const closed = await idle.closed
    expect(closed.reason).toBe('idle')
    expect(idle.frames.at(-1)).toMatchObject({ type: 'exit', reason: 'idle' })
    await json(await call('POST', `/sites/${site.id}/shell-sessions`), 201)
    await json(await call('POST', `/sites/${site.id}/shell-sessions`), 201)
    await expectProblem(await call('POST', `/sites/${site.id}/shell-sessions`), 409, 'shell_session_limit')
  }, 30_000)

  test('a suspended site refuses exec and shells with site_suspended', async () => {
    await json(await call('POST', `/sites/${other.id}/suspend`, { reason: 'abuse' }), 200).catch(async () => {
      // Some installations answer 202 with the job.
    })
    await until('the suspension', async () => {
      const now = await json(await call('GET', `/sites/${other.id}`), 200)
      return now.status === 'suspended' ? now : null
    })
    await expectProblem(
      await call('POST', `/sites/${other.id}/exec`, { argv: ['id'] }),
      409,
      'site_suspended',
    )
    await expectProblem(await call('POST', `/sites/${other.id}/shell-sessions`), 409, 'site_suspended')
  }, 30_000)
})

describe('sessions and commands of a site that goes away', () => {
  test('a replayed Idempotency-Key never hands out the same token: every request is a new session', async () => {
    const fresh = await newSite(customerId, 'idempotent.example.test')
    const ask = () =>
      fetch(`${base}/api/v1/sites/${fresh.id}/shell-sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'same-key-twice' },
      })
    const first = await ask()
    const second = await ask()
    expect(second.headers.get('idempotent-replayed')).toBeNull()
    const [a, b] = [await json(first, 201), await json(second, 201)]
    expect(b.token).not.toBe(a.token)
    expect(b.id).not.toBe(a.id)
  }, 60_000)

  /** A long command and an open shell in `target`, both running. */
  async function busy(target: Json) {
    const started = await json(
      await call('POST', `/sites/${target.id}/exec`, {
        argv: ['bash', '-c', 'echo started; sleep 300'],
        timeoutSeconds: 600,
      }),
      202,
    )
    await until('the command running', async () => {
      const job = await json(await call('GET', `/jobs/${started.jobId}`), 200)
      return job.status === 'running' ? job : null
    })
    const shell = await connect(target.id)
    expect(shell.opened).toBe(true)
    shell.socket.send(JSON.stringify({ type: 'stdin', data: 'echo ready-$((6*7))\r' }))
    await until('the shell', async () => (shell.output().includes('ready-42') ? true : null), 10_000)
    // Kept from its idle timeout (1.5 s here) until it ends: empty input still counts as input.
    const keepAlive = setInterval(() => {
      try {
        shell.socket.send(JSON.stringify({ type: 'stdin', data: '' }))
      } catch {}
    }, 300)
    void shell.closed.finally(() => clearInterval(keepAlive))
    // The command has surely started in its sandbox by now.
    await Bun.sleep(300)
    return { jobId: started.jobId as string, shell }
  }
  const jobEnd = (jobId: string) =>
    until('the command’s end', async () => {
      const job = await json(await call('GET', `/jobs/${jobId}`), 200)
      return job.status === 'running' || job.status === 'queued' || job.status === 'pending' ? null : job
    })

  test('suspending the site ends its shell site_unavailable and fails its command site_unavailable', async () => {
    const target = await newSite(customerId, 'suspended-later.example.test')
    const { jobId, shell } = await busy(target)
    await call('POST', `/sites/${target.id}/suspend`, { reason: 'abuse' })
    const closed = await shell.closed
    expect(closed.reason).toBe('site_unavailable')
    expect(shell.frames.at(-1)).toMatchObject({ type: 'exit', code: null, reason: 'site_unavailable' })
    const session = await until('the session’s end', async () => {
      const now = await json(await call('GET', `/sites/${target.id}/shell-sessions/${shell.session.id}`), 200)
      return now.status === 'ended' ? now : null
    })
    expect(session).toMatchObject({ endReason: 'site_unavailable', exitCode: null })
    const job = await jobEnd(jobId)
    expect(job.status).toBe('failed')
    expect(job.error.code).toBe('site_unavailable')
  }, 90_000)

  test('deleting the site ends its shell and command site_unavailable, and removes its sessions and recordings', async () => {
    const target = await newSite(customerId, 'deleted-later.example.test')
    const { jobId, shell } = await busy(target)
    const ended = await connect(target.id)
    ended.socket.send(JSON.stringify({ type: 'stdin', data: 'echo recorded; exit 0\r' }))
    await ended.closed
    const db = tp.panel.store.db.withTables<{
      shell_sessions: { id: string; site_id: string }
      shell_recordings: { session_id: string }
    }>()
    const ids = [shell.session.id as string, ended.session.id as string]
    await until('a recording kept', async () =>
      (await db.selectFrom('shell_recordings').select('session_id').where('session_id', 'in', ids).execute())
        .length > 0
        ? true
        : null,
    )
    expect((await call('DELETE', `/sites/${target.id}`)).status).toBe(202)
    const closed = await shell.closed
    expect(closed.reason).toBe('site_unavailable')
    const job = await jobEnd(jobId)
    expect(job.status).toBe('failed')
    expect(job.error.code).toBe('site_unavailable')
    await until('the site gone', async () =>
      (await call('GET', `/sites/${target.id}`)).status === 404 ? true : null,
    )
    await until(
      'its sessions and recordings removed',
      async () => {
        const sessions = await db
          .selectFrom('shell_sessions')
          .select('id')
          .where('site_id', '=', target.id)
          .execute()
        const pieces = await db
          .selectFrom('shell_recordings')
          .select('session_id')
          .where('session_id', 'in', ids)
          .execute()
        return sessions.length === 0 && pieces.length === 0 ? true : null
      },
      20_000,
    )
    // The other site's sessions are kept.
    expect(
      (await db.selectFrom('shell_sessions').select('id').where('site_id', '=', site.id).execute()).length,
    ).toBeGreaterThan(0)
  }, 90_000)
})

describe('a node that runs no user per site', () => {
  test('refuses commands and shells with shell_unavailable', async () => {
    const filesOnly = await createTestPanel({
      jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
      events: { pollIntervalMs: 10 },
    })
    filesOnly.panel.start()
    const admin = await filesOnly.token()
    const ask = (method: string, path: string, body?: unknown) =>
      filesOnly.request(method, `/api/v1${path}`, { token: admin, ...(body === undefined ? {} : { body }) })
    const owner = (await json(await ask('POST', '/customers', { name: 'Files Co' }), 201)).id
    const created = await json(
      await ask('POST', '/sites', {
        customerId: owner,
        name: 'f',
        type: 'wordpress',
        domain: 'f.example.test',
      }),
      201,
    )
    await until('the files-only site', async () => {
      const now = await json(await ask('GET', `/sites/${created.id}`), 200)
      return now.status === 'active' ? now : null
    })
    await expectProblem(
      await ask('POST', `/sites/${created.id}/exec`, { argv: ['id'] }),
      409,
      'shell_unavailable',
    )
    await expectProblem(await ask('POST', `/sites/${created.id}/shell-sessions`), 409, 'shell_unavailable')
    await filesOnly.panel.close()
  }, 60_000)
})
