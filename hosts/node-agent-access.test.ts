// A site's commands, shell and SFTP on a remote node: the real panel and the node agent as separate processes on
// loopback, a WordPress site served by the agent's nginx and PHP-FPM. Exec runs as the site's user with its output
// lines in the job's Server-Sent Events; a shell over a real WebSocket types, echoes (the keystroke round trip
// measured) and exits, and its recording replays; an SFTP account made through the API puts and gets a file with
// OpenSSH's `sftp` on the agent's SSH port, the file is served by the agent's nginx, and a session open when the
// account is deleted is cut. Everything reaches the node through the agent's command queue.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { sftpClient } from '../plugins/sftp/testing/sftp-client.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  freePort,
  type TestAgent,
  waitFor,
} from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } =
  createProcessTracker('plinth-access-agent-')
const agentDir = tempDataDir()
const clientDir = mkdtempSync(join(tmpdir(), 'plinth-access-client-'))
chmodSync(clientDir, 0o700)
const httpPort = freePort()
const sftpPort = freePort()
const domain = `access-${crypto.randomUUID().slice(0, 8)}.example.test`

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would.
type Json = Record<string, any>

let panelUrl = ''
let token = ''
let call: ReturnType<typeof apiClient>
let agent: TestAgent | undefined
let siteId = ''
let databaseName = ''

async function finished(jobId: string, ms = 120_000): Promise<Json> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<Json>('GET', `/jobs/${jobId}`)).body
      if (job.finishedAt) return job
      await Bun.sleep(100)
      return null
    },
    ms,
  )
}

/** Whether something accepts connections on `port` of loopback. */
function listening(port: number): Promise<true | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => {
      socket.destroy()
      setTimeout(() => resolve(null), 100)
    })
  })
}

/** The quantile `q` of `values`, in ms. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

beforeAll(async () => {
  const dataDir = tempDataDir()
  const panel = await startStandalone(dataDir, { LOCAL_SITES: 'files' })
  panelUrl = panel.url
  token = await cliStaffToken(runCli, dataDir)
  call = apiClient(panel, token)
  const nodes = await call<{ items: { id: string; name: string }[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  expect(
    (
      await call('POST', '/database-servers', {
        name: 'mariadb-1',
        engine: 'mariadb',
        host: '127.0.0.1',
        port: 3306,
        username: 'root',
        password: '',
      })
    ).status,
  ).toBe(201)
  const node = await call<{ agentToken: string }>('POST', '/nodes', {
    name: 'agent-1',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  expect(node.status).toBe(201)
  agent = await startAgent(panel, node.body.agentToken, {
    dataDir: agentDir,
    httpPort,
    // The sftp plugin's node module reads its settings from the agent's environment.
    env: { SFTP_PORT: String(sftpPort), SFTP_LISTEN: '127.0.0.1' },
  })
  await agent.stdout.waitFor(/SFTP server on port/)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: customer.body.id,
    name: 'Agent Access',
    type: 'wordpress',
    domain,
  })
  expect(site.status).toBe(201)
  siteId = site.body.id
  expect(await finished(site.body.jobId)).toMatchObject({ status: 'succeeded' })
  const databases = await call<{ items: { name: string }[] }>('GET', `/databases?siteId=${siteId}`)
  databaseName = databases.body.items[0]?.name ?? ''
}, 180_000)

afterAll(async () => {
  if (siteId) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId, 60_000).catch(() => {})
    await waitFor(
      'the site’s database to be dropped',
      async () => {
        const left = await call<{ items: unknown[] }>('GET', `/databases?siteId=${siteId}`)
        if (left.body.items.length === 0) return true
        await Bun.sleep(200)
        return null
      },
      30_000,
    ).catch(() => {})
  }
  await agent?.stop()
  if (databaseName) {
    const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
    await root.query(`DROP DATABASE IF EXISTS \`${databaseName}\``).catch(() => {})
    await root
      .query('DROP USER IF EXISTS ?@?, ?@?, ?@?', [
        databaseName,
        '%',
        databaseName,
        'localhost',
        databaseName,
        '127.0.0.1',
      ])
      .catch(() => {})
    await root.end()
  }
  // The agent's nginx, PHP-FPM and sites' users go with its folder.
  await cleanup()
  rmSync(clientDir, { recursive: true, force: true })
}, 180_000)

describe('exec through the agent', () => {
  test('runs as the site’s user, its output lines in the job’s event stream before the end', async () => {
    const state = JSON.parse(readFileSync(join(agentDir, 'sites', siteId, 'state.json'), 'utf8')) as Json
    const started = performance.now()
    const whoami = await call<Json>('POST', `/sites/${siteId}/exec`, { argv: ['id', '-un'] })
    expect(whoami.status).toBe(202)
    const job = await finished(whoami.body.jobId, 30_000)
    console.log(
      `exec id -un through the agent: ${(performance.now() - started).toFixed(0)} ms to the job's end`,
    )
    expect(job).toMatchObject({
      status: 'succeeded',
      result: { exitCode: 0, stdout: `${state.unixUser}\n`, stderr: '', timedOut: false },
    })

    const lines = await call<Json>('POST', `/sites/${siteId}/exec`, {
      argv: ['bash', '-c', 'for i in 1 2 3; do echo line $i; sleep 0.3; done; echo bad >&2; exit 4'],
    })
    expect(lines.status).toBe(202)
    const response = await fetch(`${panelUrl}/api/v1/jobs/${lines.body.jobId}/events`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    // Each event as it arrives: the first line must come before the command ended (a second later).
    const events: { event: string | undefined; data: Json; at: number }[] = []
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of response.body as ReadableStream<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      let cut = buffer.indexOf('\n\n')
      while (cut >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        if (block.includes('event: '))
          events.push({
            event: /event: (\w+)/.exec(block)?.[1],
            data: JSON.parse(/data: (.*)/.exec(block)?.[1] ?? 'null') as Json,
            at: performance.now(),
          })
        cut = buffer.indexOf('\n\n')
      }
    }
    const output = events.filter((e) => e.event === 'output')
    expect(output.map((e) => [e.data.stream, e.data.line])).toEqual([
      ['stdout', 'line 1'],
      ['stdout', 'line 2'],
      ['stdout', 'line 3'],
      ['stderr', 'bad'],
    ])
    const end = events.at(-1)
    expect(end?.event).toBe('end')
    expect(end?.data.result).toMatchObject({
      exitCode: 4,
      stdout: 'line 1\nline 2\nline 3\n',
      stderr: 'bad\n',
    })
    // Streamed, not delivered at the end: line 1 reached the client well before the job ended.
    expect((end?.at ?? 0) - (output[0]?.at ?? 0)).toBeGreaterThan(400)
  }, 60_000)

  test('a command printing 20 MB finishes promptly with 1 MiB kept and `truncated`, every answer fitting the protocol', async () => {
    const started = performance.now()
    // Long lines on stdout (500 of them were 8 MB in one answer), and control characters on stderr, which JSON
    // writes in six bytes each.
    const big = await call<Json>('POST', `/sites/${siteId}/exec`, {
      argv: [
        'bash',
        '-c',
        "head -c 20000000 /dev/zero | tr '\\0' x | fold -w 16000; head -c 3000000 /dev/zero | tr '\\0' '\\1' >&2",
      ],
    })
    expect(big.status).toBe(202)
    const job = await finished(big.body.jobId, 60_000)
    console.log(`exec printing 20 MB through the agent: ${(performance.now() - started).toFixed(0)} ms`)
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, result: { exitCode: 0, truncated: true } })
    expect(job.result.stdout.length).toBe(1024 * 1024)
    expect(job.result.stdout.startsWith('x'.repeat(16_000))).toBe(true)
    expect(job.result.stderr.length).toBeGreaterThan(0)
    expect(job.result.stderr.length).toBeLessThanOrEqual(1024 * 1024)
    // Never refused by the panel, so never sent to the agent again.
    expect(agent?.stdout.text ?? '').not.toContain('answer refused by the panel')
    expect(agent?.stdout.text ?? '').not.toContain('answer lost')
  }, 90_000)
  test('output holding NUL (a binary file printed) is shown with U+FFFD, as the local node shows it, not refused', async () => {
    const binary = await call<Json>('POST', `/sites/${siteId}/exec`, {
      argv: ['bash', '-c', "printf 'a\\0b\\n'; printf 'c\\0' >&2"],
    })
    expect(binary.status).toBe(202)
    const job = await finished(binary.body.jobId, 30_000)
    expect(job).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: { exitCode: 0, stdout: 'a\uFFFDb\n', stderr: 'c\uFFFD', truncated: false },
    })
    expect(agent?.stdout.text ?? '').not.toContain('answer refused by the panel')
  }, 60_000)
})

describe('the shell through the agent', () => {
  test('types and echoes over a real WebSocket, exits with its code, and its recording replays', async () => {
    const created = await call<Json>('POST', `/sites/${siteId}/shell-sessions`)
    expect(created.status).toBe(201)
    const session = created.body
    const frames: Json[] = []
    let seen = ''
    let onOutput: () => void = () => {}
    const socket = new WebSocket(`${session.url}?token=${session.token}&cols=100&rows=30`)
    socket.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as Json
      frames.push(frame)
      if (frame.type === 'output') {
        seen += frame.data
        onOutput()
      }
    })
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
    )
    const opened = await new Promise<boolean>((resolve) => {
      socket.addEventListener('open', () => resolve(true))
      socket.addEventListener('error', () => resolve(false))
    })
    expect(opened).toBe(true)
    /** Resolves once the output seen holds `pattern`. */
    const shows = (pattern: RegExp, ms = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${seen}`)), ms)
        const check = () => {
          if (!pattern.test(seen)) return
          clearTimeout(timer)
          onOutput = () => {}
          resolve()
        }
        onOutput = check
        check()
      })
    const send = (data: string) => socket.send(JSON.stringify({ type: 'stdin', data }))

    const connectedAt = performance.now()
    await shows(/\$ $/)
    console.log(
      `shell prompt through the agent: ${(performance.now() - connectedAt).toFixed(0)} ms after open`,
    )
    send('echo hi from $(id -un) in $(pwd)\r')
    await shows(/hi from s_\S+ in \/htdocs/)

    // The keystroke round trip: a typed character until its echo reaches the client.
    const samples: number[] = []
    for (let i = 0; i < 30; i++) {
      const mark = String.fromCharCode(97 + (i % 26))
      const before = seen.length
      const typed = performance.now()
      const echoed = new Promise<void>((resolve) => {
        onOutput = () => {
          if (seen.slice(before).includes(mark)) resolve()
        }
      })
      send(mark)
      await Promise.race([
        echoed,
        Bun.sleep(10_000).then(() => {
          throw new Error(`no echo of ${mark}`)
        }),
      ])
      samples.push(performance.now() - typed)
      // Spaced as a person types, so each keystroke finds the relay idle.
      await Bun.sleep(40)
    }
    onOutput = () => {}
    send('\u0015')
    console.log(
      `keystroke echo through the agent (${samples.length} keys): median ${quantile(samples, 0.5).toFixed(1)} ms, p90 ${quantile(samples, 0.9).toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms`,
    )
    expect(quantile(samples, 0.5)).toBeLessThan(1000)

    send('exit 3\r')
    expect(await closed).toMatchObject({ code: 1000 })
    expect(frames.at(-1)).toEqual({ type: 'exit', code: 3, reason: 'exited' })

    const ended = await waitFor(
      'the session’s end',
      async () => {
        const now = (await call<Json>('GET', `/sites/${siteId}/shell-sessions/${session.id}`)).body
        if (now.status === 'ended') return now
        await Bun.sleep(100)
        return null
      },
      15_000,
    )
    expect(ended).toMatchObject({ endReason: 'exited', exitCode: 3 })
    const recording = await fetch(
      `${panelUrl}/api/v1/sites/${siteId}/shell-sessions/${session.id}/recording`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    )
    expect(recording.status).toBe(200)
    expect(recording.headers.get('content-type')).toContain('application/x-asciicast')
    const lines = (await recording.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ version: 2, width: 100, height: 30 })
    expect(
      lines
        .filter((line) => Array.isArray(line) && line[1] === 'o')
        .map((line) => line[2])
        .join(''),
    ).toContain('hi from s_')
  }, 90_000)
})

describe('SFTP through the agent', () => {
  test('an account made through the API puts and gets on the agent’s SSH server; deleting it cuts its session', async () => {
    const created = await call<Json>('POST', `/sites/${siteId}/sftp-users`, { name: 'deploy' })
    expect(created.status).toBe(201)
    const account = created.body
    expect(account).toMatchObject({ host: '127.0.0.1', port: sftpPort, passwordEnabled: true })
    expect(account.hostKeyFingerprints.length).toBeGreaterThan(0)
    const credential = { password: account.password as string }
    const client = sftpClient(clientDir, sftpPort)

    const local = join(clientDir, 'upload')
    mkdirSync(local, { recursive: true })
    const body = `hello from sftp ${crypto.randomUUID()}\n`
    writeFileSync(join(local, 'hello.txt'), body)
    await waitFor('the agent’s SFTP server', () => listening(sftpPort), 15_000)
    const put = await client.run(account.username, credential, [
      `put ${join(local, 'hello.txt')} /htdocs/hello.txt`,
      'ls /htdocs',
      `get /htdocs/hello.txt ${join(local, 'back.txt')}`,
    ])
    expect(put.stderr).not.toMatch(/denied|failure/i)
    expect(put.code).toBe(0)
    expect(put.stdout).toContain('hello.txt')
    expect(readFileSync(join(local, 'back.txt'), 'utf8')).toBe(body)
    // The node's host key, as the client recorded it, is one the API showed.
    const scanned = Bun.spawnSync(['ssh-keygen', '-l', '-f', client.knownHosts]).stdout.toString()
    expect(account.hostKeyFingerprints.some((print: string) => scanned.includes(print))).toBe(true)
    // Written as the site's user, and served by the agent's nginx.
    const served = await fetch(`http://127.0.0.1:${httpPort}/hello.txt`, { headers: { host: domain } })
    expect(served.status).toBe(200)
    expect(await served.text()).toBe(body)

    const session = client.open(account.username, credential)
    session.send('ls /htdocs')
    await waitFor(
      'the session to list',
      async () => {
        if (session.state.output.includes('hello.txt')) return true
        await Bun.sleep(50)
        return null
      },
      20_000,
    )
    const deletedAt = performance.now()
    expect((await call('DELETE', `/sites/${siteId}/sftp-users/${account.id}`)).status).toBe(204)
    await waitFor(
      'the node to end the session',
      async () => {
        if (/Received disconnect|Connection closed/.test(session.state.output)) return true
        await Bun.sleep(20)
        return null
      },
      20_000,
    )
    console.log(`SFTP session cut ${(performance.now() - deletedAt).toFixed(0)} ms after DELETE was sent`)
    const before = session.state.output.length
    session.send('ls /htdocs')
    const code = await Promise.race([session.exited, Bun.sleep(10_000).then(() => 'still open')])
    session.kill()
    expect(code).not.toBe('still open')
    expect(code).not.toBe(0)
    expect(session.state.output.slice(before)).not.toContain('hello.txt')
    const again = await client.run(account.username, credential, ['ls /'])
    expect(again.code).not.toBe(0)
    expect(again.stderr).toMatch(/Permission denied/)
  }, 90_000)
})

describe('logs through the agent', () => {
  test('a request to the site is listed by the access log, and a follow receives one made after it opened', async () => {
    const answered = await (agent as TestAgent).fromNode(domain, '/logs-through-agent')
    await answered.arrayBuffer()
    const listed = await waitFor('the request in the access log', async () => {
      const page = await call<Json>('GET', `/sites/${siteId}/logs/access?search=logs-through-agent`)
      if (page.body.entries?.length > 0) return page.body.entries as Json[]
      await Bun.sleep(100)
      return null
    })
    expect(listed[0]).toMatchObject({ method: 'GET', path: '/logs-through-agent', status: answered.status })
    const response = await fetch(`${panelUrl}/api/v1/sites/${siteId}/logs/access?lines=1`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const until = async (what: string) => {
      const deadline = Date.now() + 15_000
      while (!text.includes(what)) {
        if (Date.now() > deadline) throw new Error(`no ${what} in: ${text}`)
        const { value, done } = await reader.read()
        if (done) throw new Error(`the stream ended: ${text}`)
        text += decoder.decode(value, { stream: true })
      }
    }
    await until('/logs-through-agent')
    const requestedAt = performance.now()
    await (await (agent as TestAgent).fromNode(domain, '/followed-through-agent')).arrayBuffer()
    await until('/followed-through-agent')
    console.log(`followed log entry through the agent: ${(performance.now() - requestedAt).toFixed(0)} ms`)
    await reader.cancel()
  }, 40_000)
})
