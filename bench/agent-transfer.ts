// How fast a large file goes into a site on a remote node, and what it costs the panel and the node agent: starts the
// standalone server as `npm start` runs it (its local node drained) and a node agent (`bun hosts/agent/main.ts`) as
// separate processes on loopback, makes a WordPress site on the agent's node, then moves a file of UPLOAD_MB (1024)
// MiB of random bytes four ways: PUT with curl to `/files/content` (4 MiB parts, each a command sealed in the panel's
// store for the agent), read back whole through a download link, and put and got with OpenSSH's `sftp` on the agent's
// SSH port with an account made through the API. For each: seconds, MB/s, the CPU the panel and the agent spent (the
// agent's reaped children, `dd` and `sftp-server`, apart), and their peak RSS sampled every 50 ms. Every transfer's
// size and SHA-256 are checked. `bun bench/agent-transfer.ts` (as root, with nginx, PHP-FPM, MariaDB, bubblewrap and
// openssh-sftp-server). PROFILE=panel|agent|both writes a CPU profile in Markdown (`--cpu-prof-md`) of that process
// into PROFILE_DIR (a new folder under the temporary directory by default) when it exits.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, removeNodeLeftovers } from '../hosts/testing/index.ts'
import { apiCaller, sftpAccountWithKey, sftpBatch } from './bench-site.ts'
import { root, staffToken, startServer } from './standalone.ts'

const megabytes = Number(process.env.UPLOAD_MB ?? 1024)
const bytes = megabytes * 1024 * 1024
const profile = process.env.PROFILE ?? ''
const profileDir =
  profile === ''
    ? ''
    : (process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'plinth-agent-transfer-prof-')))
const profiled = (who: 'panel' | 'agent'): Record<string, string> =>
  profile === who || profile === 'both' ? { BUN_OPTIONS: `--cpu-prof-md --cpu-prof-dir=${profileDir}` } : {}

const folder = mkdtempSync(join(tmpdir(), 'plinth-agent-transfer-bench-'))
// nginx's workers and the sites' users pass through to the sites' homes on the agent's node.
chmodSync(folder, 0o711)
const agentDir = join(folder, 'node')
mkdirSync(agentDir, { mode: 0o711 })
chmodSync(agentDir, 0o711)
const clientDir = join(folder, 'client')
mkdirSync(clientDir, { mode: 0o700 })
const sftpPort = freePort()
const env = {
  DATA_DIR: join(folder, 'panel'),
  SITES_DATA_DIR: join(folder, 'local-node'),
  LOCAL_SITES: 'files',
  PLINTH_SECRET: 'b'.repeat(64),
}
const server = await startServer({ ...env, PORT: '0', ...profiled('panel') })

/** The last of what a process said, for an error message. */
function keepTail(stream: ReadableStream<Uint8Array>, into: { text: string }): void {
  const decoder = new TextDecoder()
  void (async () => {
    for await (const chunk of stream) into.text = (into.text + decoder.decode(chunk)).slice(-20_000)
  })().catch(() => {})
}
// The server's stdout is read until it said its URL: the rest drained, so a full pipe never stalls it.
keepTail(server.process.stdout, { text: '' })

/** A process's figures from /proc: resident memory (MiB), its CPU seconds and those of its reaped children. */
function rssMiB(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}
function cpu(pid: number): { own: number; children: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const ticks = (index: number) => Number(fields[index]) / 100
  return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14) }
}

/** The SHA-256 of a file, by `sha256sum` (awaited, the event loop free). */
async function sha256(path: string): Promise<string> {
  const child = Bun.spawn(['sha256sum', path], { stdout: 'pipe' })
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
  if (code !== 0) throw new Error(`sha256sum ${path} failed`)
  return out.split(' ')[0] ?? ''
}

interface Figures {
  readonly seconds: number
  readonly panelCpu: number
  readonly agentCpu: number
  readonly agentChildrenCpu: number
  readonly panelBefore: number
  readonly panelPeak: number
  readonly agentBefore: number
  readonly agentPeak: number
}

let agent: Bun.Subprocess<'ignore', 'pipe', 'pipe'> | undefined
const agentSaid = { text: '' }
let call: <T>(method: string, path: string, body?: unknown) => Promise<T> = () => {
  throw new Error('no token yet')
}
let siteId = ''
let databaseName = ''

/** Runs `work`, sampling both processes' RSS every 50 ms and their CPU before and after. */
async function measure(work: () => Promise<void>): Promise<Figures> {
  const panelPid = server.process.pid
  const agentPid = agent?.pid ?? 0
  const panelBefore = rssMiB(panelPid)
  const agentBefore = rssMiB(agentPid)
  let panelPeak = panelBefore
  let agentPeak = agentBefore
  const timer = setInterval(() => {
    panelPeak = Math.max(panelPeak, rssMiB(panelPid))
    agentPeak = Math.max(agentPeak, rssMiB(agentPid))
  }, 50)
  const panelCpu = cpu(panelPid)
  const agentCpu = cpu(agentPid)
  const started = performance.now()
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  const seconds = (performance.now() - started) / 1000
  const panelAfter = cpu(panelPid)
  const agentAfter = cpu(agentPid)
  return {
    seconds,
    panelCpu: panelAfter.own - panelCpu.own,
    agentCpu: agentAfter.own - agentCpu.own,
    agentChildrenCpu: agentAfter.children - agentCpu.children,
    panelBefore,
    panelPeak,
    agentBefore,
    agentPeak,
  }
}

/** A job's end, polled. */
async function finished(jobId: string, ms: number): Promise<{ status: string }> {
  const deadline = Date.now() + ms
  for (;;) {
    const job = await call<{ status: string; finishedAt: string | null }>('GET', `/jobs/${jobId}`)
    if (job.finishedAt) return job
    if (Date.now() > deadline) throw new Error(`job ${jobId} not finished after ${ms} ms`)
    await Bun.sleep(200)
  }
}

/** Reads the agent's output until `pattern` shows. */
async function agentSays(pattern: RegExp, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!pattern.test(agentSaid.text)) {
    if (agent?.exitCode !== null) throw new Error(`the agent exited: ${agentSaid.text}`)
    if (Date.now() > deadline) throw new Error(`the agent did not say ${pattern}: ${agentSaid.text}`)
    await Bun.sleep(100)
  }
}

const results: [string, Figures][] = []
try {
  const token = await staffToken(env)
  call = apiCaller(server.url, token)

  // The local node drained: the site goes to the agent's node.
  const nodes = await call<{ items: { id: string; name: string }[] }>('GET', '/nodes')
  const local = nodes.items.find((node) => node.name === 'local')
  if (!local) throw new Error('no local node')
  await call('PATCH', `/nodes/${local.id}`, { status: 'draining' })
  // The standard installation's sites are WordPress: on the machine's MariaDB.
  await call('POST', '/database-servers', {
    name: 'mariadb',
    engine: 'mariadb',
    host: '127.0.0.1',
    port: 3306,
    username: 'root',
    password: '',
  })
  const node = await call<{ agentToken: string }>('POST', '/nodes', {
    name: 'agent-bench',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  agent = Bun.spawn([process.execPath, 'hosts/agent/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PANEL_URL: server.url,
      AGENT_TOKEN: node.agentToken,
      AGENT_DATA_DIR: agentDir,
      SITES_HTTP_PORT: String(freePort()),
      SITES_HTTPS_PORT: String(freePort()),
      SFTP_PORT: String(sftpPort),
      SFTP_LISTEN: '127.0.0.1',
      ...profiled('agent'),
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  keepTail(agent.stdout, agentSaid)
  keepTail(agent.stderr, agentSaid)
  await agentSays(/Plinth node agent connected/)
  await agentSays(/SFTP server on port/)

  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Agent Transfer Bench' })
  const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: customer.id,
    name: 'agent-transfer',
    type: 'wordpress',
    domain: `transfer-${crypto.randomUUID().slice(0, 8)}.example.test`,
  })
  siteId = site.id
  const provisioned = await finished(site.jobId, 300_000)
  if (provisioned.status !== 'succeeded') throw new Error(`the site failed: ${JSON.stringify(provisioned)}`)
  const databases = await call<{ items: { name: string }[] }>('GET', `/databases?siteId=${siteId}`)
  databaseName = databases.items[0]?.name ?? ''
  const home = join(agentDir, 'sites', siteId)
  statSync(join(home, 'tmp'))

  const file = join(clientDir, 'upload.bin')
  const made = Bun.spawn([
    'dd',
    'if=/dev/urandom',
    `of=${file}`,
    'bs=1M',
    `count=${megabytes}`,
    'status=none',
  ])
  if ((await made.exited) !== 0) throw new Error('dd failed')
  const expected = await sha256(file)
  /** The size and hash of a file the transfer made, against the source's. */
  const check = async (what: string, path: string) => {
    const size = statSync(path).size
    if (size !== bytes) throw new Error(`${what}: ${size} bytes, not ${bytes}`)
    const hash = await sha256(path)
    if (hash !== expected) throw new Error(`${what}: SHA-256 ${hash}, not ${expected}`)
  }

  /** curl with `args`, awaited without blocking the sampling. */
  const curl = async (args: string[]) => {
    const child = Bun.spawn(['curl', '-sS', '-w', '%{http_code}', ...args], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    if (stderr) console.error(`curl: ${stderr}`)
    return out
  }

  // (1) PUT through the API.
  const answer = join(clientDir, 'put-answer.json')
  const answered = { put: '', get: '' }
  results.push([
    'API PUT /files/content',
    await measure(async () => {
      answered.put = await curl([
        '-o',
        answer,
        '-T',
        file,
        '-H',
        `authorization: Bearer ${token}`,
        `${server.url}/api/v1/sites/${siteId}/files/content?path=/tmp/upload.bin`,
      ])
    }),
  ])
  if (answered.put !== '201')
    throw new Error(`the upload answered ${answered.put}: ${readFileSync(answer, 'utf8')}`)
  await check('the uploaded file on the node', join(home, 'tmp', 'upload.bin'))

  // (2) Read back through a download link.
  const link = await call<{ url: string }>('POST', `/sites/${siteId}/files/download-links`, {
    path: '/tmp/upload.bin',
  })
  const downloaded = join(clientDir, 'download.bin')
  results.push([
    'API download link',
    await measure(async () => {
      answered.get = await curl(['-o', downloaded, link.url])
    }),
  ])
  if (answered.get !== '200') throw new Error(`the download answered ${answered.get}`)
  await check('the downloaded file', downloaded)
  rmSync(downloaded)

  // (3) SFTP put and get on the agent's SSH port, with an account made through the API.
  const { key, account } = await sftpAccountWithKey(call, siteId, clientDir)
  if (account.port !== sftpPort) throw new Error(`the account says port ${account.port}, not ${sftpPort}`)
  const sftp = sftpBatch({ port: sftpPort, key, username: account.username })
  results.push(['SFTP put', await measure(() => sftp(`put ${file} /tmp/sftp.bin`))])
  await check('the file put over SFTP on the node', join(home, 'tmp', 'sftp.bin'))
  const got = join(clientDir, 'sftp-get.bin')
  results.push(['SFTP get', await measure(() => sftp(`get /tmp/sftp.bin ${got}`))])
  await check('the file got over SFTP', got)
  rmSync(got)

  const rate = (seconds: number) => (bytes / seconds / 1e6).toFixed(0)
  console.log(
    `file of ${megabytes} MiB (SHA-256 checked) into a WordPress site on a node agent's node (panel and agent on loopback, 2 shared cores):`,
  )
  console.log(
    '| transfer | s | MB/s | panel CPU s | agent CPU s | agent children CPU s | panel RSS before → peak MiB | agent RSS before → peak MiB |',
  )
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|')
  for (const [name, f] of results)
    console.log(
      `| ${name} | ${f.seconds.toFixed(1)} | ${rate(f.seconds)} | ${f.panelCpu.toFixed(1)} | ${f.agentCpu.toFixed(1)} | ${f.agentChildrenCpu.toFixed(1)} | ${f.panelBefore.toFixed(0)} → ${f.panelPeak.toFixed(0)} | ${f.agentBefore.toFixed(0)} → ${f.agentPeak.toFixed(0)} |`,
    )
} finally {
  // The site deleted through the API: its Unix user, home and database go with it.
  if (siteId) {
    try {
      const deleted = await call<{ jobId?: string } | null>('DELETE', `/sites/${siteId}`)
      if (deleted?.jobId) {
        const end = await finished(deleted.jobId, 120_000)
        if (end.status !== 'succeeded') console.error(`deleting the site: ${JSON.stringify(end)}`)
      }
      for (let i = 0; i < 100; i++) {
        const left = await call<{ items: unknown[] }>('GET', `/databases?siteId=${siteId}`)
        if (left.items.length === 0) break
        await Bun.sleep(200)
      }
    } catch (error) {
      console.error(`deleting the site: ${(error as Error).message}`)
    }
  }
  if (agent && agent.exitCode === null) {
    agent.kill('SIGTERM')
    await agent.exited
  }
  server.process.kill('SIGTERM')
  await server.process.exited
  // The agent leaves its nginx and PHP-FPM serving when it stops: stopped here.
  // nginx, each site's PHP-FPM master and what they left, and any site user left behind.
  removeNodeLeftovers(agentDir)
  // What the site's deletion should have removed, removed here if it did not (and said).
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name = '', , , , , home = ''] = line.split(':')
    if (!home.startsWith(`${agentDir}/`)) continue
    console.error(`the site's user ${name} was left: removed`)
    await Bun.spawn(['pkill', '-KILL', '-u', name]).exited
    await Bun.spawn(['userdel', name]).exited
    await Bun.spawn(['groupdel', name]).exited
  }
  if (databaseName) {
    const connection = await mysql.createConnection({
      host: '127.0.0.1',
      port: 3306,
      user: 'root',
      password: '',
    })
    const [rows] = await connection.query('SHOW DATABASES LIKE ?', [databaseName])
    if ((rows as unknown[]).length > 0) {
      console.error(`the site's database ${databaseName} was left: dropped`)
      await connection.query(`DROP DATABASE IF EXISTS \`${databaseName}\``)
    }
    for (const host of ['%', 'localhost', '127.0.0.1'])
      await connection.query('DROP USER IF EXISTS ?@?', [databaseName, host]).catch(() => {})
    await connection.end()
  }
  rmSync(folder, { recursive: true, force: true })
  if (profileDir)
    console.log(`CPU profiles: ${readdirSync(profileDir).map((name) => join(profileDir, name))}`)
}
