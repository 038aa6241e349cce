// A site's network is its own, as the kernel holds it: from the site's PHP (its pool, through the runtime's nginx)
// and from its programs (the PHP CLI run as its user, as its jobs and shell run), the panel on loopback, Redis,
// PostgreSQL, MariaDB, the node's own address, cloud metadata, IPv6 loopback and another site's PHP-FPM socket are
// refused; the node's database port, another site through the node's nginx, a resolver on loopback (port 53 only)
// and an address off the node (in a network namespace of the test's own) are reached; root is not held back.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, lchownSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { NodeService, SiteApplication } from '../contract.ts'
import { never, processesOf, request, servingDataDir, sh, siteSpec } from '../testing/serving.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { networkTableName, siteFlowShare } from './network-rules.ts'

const suffix = Math.random().toString(36).slice(2, 8)
const dataDir = servingDataDir('plinth-network-')
const httpPort = freePort()
const layout = runtimeLayout(dataDir)
const table = networkTableName(layout.dataDir)
// A server on loopback that one site's application names (a database server on the panel's machine): that site
// alone reaches it.
const ownServer = greeter('127.0.0.1', 0, 'own-server')
const site = siteSpec({
  app: { kind: 'reacher', settings: { host: 'localhost', port: ownServer.port } },
  id: `site_net_a_${suffix}`,
  handle: `net-a-${suffix}`,
  domain: `a-${suffix}.example.com`,
})
const other = siteSpec({
  id: `site_net_b_${suffix}`,
  handle: `net-b-${suffix}`,
  domain: `b-${suffix}.example.com`,
})
const paths = siteLayout(layout, site)

/** A TCP listener of the test's (root's) that greets whoever connects. */
function greeter(hostname: string, port: number, greeting: string) {
  return Bun.listen({
    hostname,
    port,
    socket: {
      open: (socket) => {
        socket.end(`${greeting}\n`)
      },
      data: () => {},
    },
  })
}

// What the node's database service would serve the sites on (its port is what the closure reads: `sitePorts`).
const database = greeter('127.0.0.1', 0, 'database')
// What a site may not reach: a panel on loopback, a service on every address of the node, one on IPv6 loopback.
const panel = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('panel\n') })
const everywhere = greeter('::', 0, 'node-wide')
const loopback6 = greeter('::1', 0, 'loopback6')
// A database server as the node's service knows it: its port said once the service started, not before.
const laterDatabase = greeter('127.0.0.1', 0, 'later-database')
const listeners: { stop(closeActive?: boolean): void }[] = [
  database,
  panel,
  everywhere,
  loopback6,
  ownServer,
  laterDatabase,
]

/** The services this machine runs on loopback (Redis, PostgreSQL, MariaDB), or a greeter of ours where none does. */
function wellKnown(port: number): void {
  if (sh(['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`]).code !== 0)
    listeners.push(greeter('127.0.0.1', port, `stand-in for ${port}`))
}
for (const port of [6379, 5432, 3306]) wellKnown(port)

/** The node's first address off loopback, of `family`, not link-local, not the test's own namespace's. */
function nodeAddress(family: 'IPv4' | 'IPv6'): string | null {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (name.startsWith('plv')) continue
    for (const address of addresses ?? [])
      if (address.family === family && !address.internal && !address.address.startsWith('fe80'))
        return address.address
  }
  return null
}

// An address off the node: a network namespace of the test's own behind a veth pair, a greeter inside it. Names and
// the /30 out of 198.18.0.0/15 (benchmarking's) are random, so tests running at once do not meet.
const namespace = `plnet${suffix}`
const outerLink = `plv${suffix}o`
const third = Math.floor(Math.random() * 256)
const fourth = Math.floor(Math.random() * 31) * 8
const near = `198.18.${third}.${fourth + 1}`
const far = `198.18.${third}.${fourth + 2}`
/** The panel's address, as an agent's `PANEL_URL` names it: off the node, closed to the sites like its own. */
const panelAddress = `198.18.${third}.${fourth + 3}`
const farPort = 18_080
let farGreeter: Bun.Subprocess | null = null

// A resolver on loopback (as systemd-resolved's 127.0.0.53, Docker's 127.0.0.11): an echo on UDP port 53 of an
// address of 127/8 of the test's own, named by the node's resolv.conf, and a second echo on another port of it,
// which stays closed.
const resolver = `127.${Math.floor(Math.random() * 250) + 2}.${third}.${Math.floor(Math.random() * 250) + 2}`
const etc = mkdtempSync(join(tmpdir(), 'plinth-network-etc-'))
const resolvConf = join(etc, 'resolv.conf')
writeFileSync(resolvConf, `# The test's own.\nnameserver ${resolver}\n`)
const echo = {
  data: (socket: Bun.udp.Socket<'buffer'>, data: Buffer, port: number, address: string) => {
    socket.send(data, port, address)
  },
  // An answer to a client gone meanwhile comes back as an ICMP error: nothing to do.
  error: () => {},
}
let dns: Bun.udp.Socket<'buffer'> | null = null
let notDns: Bun.udp.Socket<'buffer'> | null = null

/** A service as a node module offers one: what the database service is to the closure, and a way to run programs. */
const services: NodeService[] = [
  {
    name: 'probe',
    sitePorts: () => [database.port],
    async handle(nodeSite, requestBody) {
      const targets = requestBody as string[]
      const result = await nodeSite.run(
        ['php', join(nodeSite.home, 'htdocs', 'probe.php'), ...targets],
        {},
        never(),
      )
      return JSON.parse(result.stdout || '{}')
    },
  },
]
/** An application that installs nothing, and names the server its settings give. */
const reacher: SiteApplication = {
  kind: 'reacher',
  probe: async () => ({ version: '1' }),
  reaches: (settings) => [{ host: String(settings.host), port: Number(settings.port) }],
  apply: async () => 'applied',
}
const runtimeSettings = {
  dataDir,
  httpPort,
  httpsPort: freePort(),
  panelHost: panelAddress,
  resolvConf,
  parts: () => ({ services, applications: [reacher] }),
}
const runtime = createSiteRuntime(runtimeSettings)

/** What `targets` come to from the site's PHP-FPM pool, through the runtime's nginx. */
async function fromPool(targets: readonly string[]): Promise<Record<string, Outcome>> {
  const response = await request(
    httpPort,
    site.domain,
    `/probe.php?t=${encodeURIComponent(targets.join(','))}`,
  )
  expect(response.status).toBe(200)
  return response.json()
}

/** What `targets` come to from a program run as a site's user (the PHP CLI, as its jobs and shell run it). */
async function fromProgram(
  targets: readonly string[],
  siteId = site.id,
  through = runtime,
): Promise<Record<string, Outcome>> {
  return (await through.call({ siteId, service: 'probe', request: targets }, never())) as Record<
    string,
    Outcome
  >
}

/** What `targets` come to as root (the panel's, the agent's processes); not blocking: the listeners here answer. */
async function asRoot(targets: readonly string[]): Promise<Record<string, Outcome>> {
  const child = Bun.spawn(['php', join(paths.htdocs, 'probe.php'), ...targets], { stdout: 'pipe' })
  return JSON.parse(await new Response(child.stdout).text())
}

interface Outcome {
  readonly open: boolean
  readonly said: string | null
  readonly error: string
  readonly ms: number
}

const node4 = nodeAddress('IPv4')
const node6 = nodeAddress('IPv6')
const refused = [
  `tcp://127.0.0.1:${panel.port}`,
  'tcp://127.0.0.1:6379',
  'tcp://127.0.0.1:5432',
  'tcp://127.0.0.1:3306',
  `tcp://[::1]:${loopback6.port}`,
  `tcp://${near}:${everywhere.port}`,
  `tcp://${panelAddress}:${farPort}`,
  ...(node4 ? [`tcp://${node4}:${everywhere.port}`] : []),
  ...(node6 ? [`tcp://[${node6}]:${everywhere.port}`] : []),
  `udp://${resolver}:${0}`,
]
const metadata = 'tcp://169.254.169.254:80'

beforeAll(async () => {
  const setUp = [
    ['ip', 'netns', 'add', namespace],
    ['ip', 'link', 'add', outerLink, 'type', 'veth', 'peer', 'name', `plv${suffix}i`],
    ['ip', 'link', 'set', `plv${suffix}i`, 'netns', namespace],
    ['ip', 'link', 'set', outerLink, 'up'],
    ['ip', 'addr', 'add', `${near}/29`, 'dev', outerLink],
    ['ip', '-n', namespace, 'addr', 'add', `${far}/29`, 'dev', `plv${suffix}i`],
    ['ip', '-n', namespace, 'addr', 'add', `${panelAddress}/29`, 'dev', `plv${suffix}i`],
    ['ip', '-n', namespace, 'link', 'set', `plv${suffix}i`, 'up'],
  ]
  for (const argv of setUp) expect(sh(argv).code).toBe(0)
  const greeting = Bun.spawn(
    [
      'ip',
      'netns',
      'exec',
      namespace,
      process.execPath,
      '-e',
      `Bun.listen({ hostname: '0.0.0.0', port: ${farPort}, socket: { open: (s) => { s.end('outside\\n') }, data() {} } }); console.log('listening')`,
    ],
    { stdout: 'pipe' },
  )
  farGreeter = greeting
  const reader = greeting.stdout.getReader()
  await reader.read()
  reader.releaseLock()
  dns = await Bun.udpSocket({ hostname: resolver, port: 53, socket: echo })
  notDns = await Bun.udpSocket({ hostname: resolver, port: 0, socket: echo })

  await runtime.start()
  for (const each of [site, other]) await runtime.provision(each, never())
  for (const each of [site, other]) {
    const { htdocs } = siteLayout(layout, each)
    const probe = join(htdocs, 'probe.php')
    copyFileSync(join(import.meta.dir, 'site-network.test.php'), probe)
    lchownSync(probe, statSync(htdocs).uid, statSync(htdocs).gid)
  }
})

afterAll(async () => {
  // Whatever failed above: no site's user, no master, no table, no namespace is left behind.
  for (const each of [site, other]) await runtime.delete(each, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  sh(['nft', 'delete', 'table', 'inet', table])
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(etc, { recursive: true, force: true })
  farGreeter?.kill('SIGKILL')
  sh(['ip', 'link', 'del', outerLink])
  sh(['ip', 'netns', 'del', namespace])
  for (const listener of listeners) listener.stop(true)
  dns?.close()
  notDns?.close()
})

describe('a site’s network', () => {
  test('the node says it holds its sites back, by their users, in a table of its own', async () => {
    expect((await runtime.capabilities()).network).toEqual({
      enforced: true,
      how: `nftables by site uid (table inet ${table})`,
    })
    const listed = sh(['nft', 'list', 'set', 'inet', table, 'site_uids']).stdout
    for (const each of [site, other]) {
      const uid = Number(sh(['id', '-u', siteLayout(layout, each).user]).stdout)
      expect(listed).toContain(String(uid))
    }
  })

  test('its PHP and its programs are refused the panel (on loopback, and an agent’s panel off the node), Redis, PostgreSQL, MariaDB, the node’s own addresses, IPv6 loopback and a port of a resolver other than 53, at once', async () => {
    const targets = refused.map((target) => target.replace(':0', `:${notDns?.port}`))
    for (const outcomes of [await fromPool(targets), await fromProgram(targets)]) {
      for (const target of targets) {
        expect({ target, ...outcomes[target] }).toMatchObject({ target, open: false })
        // Refused, not timed out: a client fails at once.
        expect(outcomes[target]?.ms).toBeLessThan(2_000)
      }
    }
    // The same, as root: everything there is reached.
    const root = await asRoot(targets)
    for (const target of targets) expect({ target, ...root[target] }).toMatchObject({ target, open: true })
  })

  test('cloud metadata (link-local) is refused at once; root is not', async () => {
    for (const outcomes of [await fromPool([metadata]), await fromProgram([metadata])]) {
      expect(outcomes[metadata]).toMatchObject({ open: false, error: expect.stringMatching(/refused/i) })
      expect(outcomes[metadata]?.ms).toBeLessThan(1_000)
    }
    // Root is not refused: it reaches the metadata service where the machine has one (Firecracker's MMDS, a cloud's),
    // or waits out its timeout where nothing answers.
    expect((await asRoot([metadata]))[metadata]?.error).not.toMatch(/refused/i)
  })

  test('another site’s PHP-FPM socket refuses it: hidden from its pool’s sandbox, closed to its programs by its folder', async () => {
    const socket = siteLayout(layout, other).socket
    // It is there, and root reaches it.
    expect(existsSync(socket)).toBe(true)
    expect((await asRoot([`unix://${socket}`]))[`unix://${socket}`]).toMatchObject({ open: true })
    const target = `unix://${socket}`
    expect((await fromPool([target]))[target]).toMatchObject({
      open: false,
      error: expect.stringMatching(/no such file|permission denied/i),
    })
    expect((await fromProgram([target]))[target]).toMatchObject({
      open: false,
      error: expect.stringMatching(/permission denied/i),
    })
  })

  test('it reaches the node’s database port, another site through the node’s nginx, a loopback resolver’s port 53 and an address off the node', async () => {
    const reached = [
      `tcp://127.0.0.1:${database.port}`,
      `http://127.0.0.1:${httpPort}/|${other.domain}`,
      ...(node4 ? [`http://${node4}:${httpPort}/|${other.domain}`] : []),
      `udp://${resolver}:53`,
      `tcp://${far}:${farPort}`,
    ]
    for (const outcomes of [await fromPool(reached), await fromProgram(reached)]) {
      expect(outcomes[`tcp://127.0.0.1:${database.port}`]).toMatchObject({ open: true, said: 'database' })
      expect(outcomes[`http://127.0.0.1:${httpPort}/|${other.domain}`]).toMatchObject({ open: true })
      if (node4)
        expect(outcomes[`http://${node4}:${httpPort}/|${other.domain}`]).toMatchObject({ open: true })
      expect(outcomes[`udp://${resolver}:53`]).toMatchObject({ open: true, said: 'ping' })
      expect(outcomes[`tcp://${far}:${farPort}`]).toMatchObject({ open: true, said: 'outside' })
    }
  })

  test('a server on loopback its application names is reached by that site alone, also after the node restarts', async () => {
    const target = `tcp://127.0.0.1:${ownServer.port}`
    for (const outcomes of [await fromPool([target]), await fromProgram([target])])
      expect(outcomes[target]).toMatchObject({ open: true, said: 'own-server' })
    expect((await fromProgram([target], other.id))[target]).toMatchObject({ open: false })
    // A new process over the same data directory knows it from the site's state.json: nothing of the first is kept.
    sh(['nft', 'delete', 'table', 'inet', table])
    const again = createSiteRuntime(runtimeSettings)
    await again.start()
    expect((await fromProgram([target], site.id, again))[target]).toMatchObject({
      open: true,
      said: 'own-server',
    })
    expect((await fromProgram([target], other.id, again))[target]).toMatchObject({ open: false })
  })

  test('the node’s database port stays open to the sites while a node starts again, before its services have', async () => {
    const target = `tcp://127.0.0.1:${laterDatabase.port}`
    let running = true
    const database: NodeService = {
      name: 'later-database',
      sitePorts: () => (running ? [laterDatabase.port] : []),
      handle: async () => null,
    }
    const withDatabase = {
      ...runtimeSettings,
      parts: () => ({ services: [...services, database], applications: [reacher] }),
    }
    const first = createSiteRuntime(withDatabase)
    await first.start()
    await first.startServices(() => {}, [database])
    expect((await fromProgram([target], other.id, first))[target]).toMatchObject({ open: true })
    // The node starts again (a restart, an upgrade moving its sites, a reboot that lost the table): until its
    // services started, the database server says no port, and its sites' PHP kept running meanwhile.
    running = false
    sh(['nft', 'delete', 'table', 'inet', table])
    const again = createSiteRuntime(withDatabase)
    await again.start()
    expect((await fromProgram([target], other.id, again))[target]).toMatchObject({
      open: true,
      said: 'later-database',
    })
    // Once its services started, what they say now holds: a server no longer run is closed again.
    await again.startServices(() => {}, [database])
    expect((await fromProgram([target], other.id, again))[target]).toMatchObject({ open: false })
    // A node upgraded from a version that recorded no ports: what the service's own files say is kept open.
    rmSync(layout.servicePorts, { force: true })
    sh(['nft', 'delete', 'table', 'inet', table])
    const atRest: NodeService = {
      name: 'later-database',
      sitePortsAtRest: (own) =>
        own === join(layout.dataDir, 'services', 'later-database') ? [laterDatabase.port] : [],
      handle: async () => null,
    }
    const upgraded = createSiteRuntime({
      ...runtimeSettings,
      parts: () => ({ services: [...services, atRest], applications: [reacher] }),
    })
    await upgraded.start()
    expect((await fromProgram([target], other.id, upgraded))[target]).toMatchObject({
      open: true,
      said: 'later-database',
    })
  })

  // Last: the site's flows stay counted for 30 s (UDP's timeout in the kernel's tracking).
  test('one site cannot fill the node’s connection tracking: past its share its new flows are refused, not another site’s', async () => {
    const flood = join(paths.htdocs, 'flood.php')
    writeFileSync(
      flood,
      `<?php $sent = 0; $refused = 0;
for ($port = 1; $port <= ${siteFlowShare + 500}; $port++) {
  $socket = @stream_socket_client("udp://${far}:$port");
  if ($socket && @fwrite($socket, "x") === 1) $sent++; else $refused++;
  if ($socket) fclose($socket);
}
echo "$sent $refused";`,
    )
    lchownSync(flood, statSync(paths.htdocs).uid, statSync(paths.htdocs).gid)
    const [sent, refused] = (await (await request(httpPort, site.domain, '/flood.php')).text())
      .split(' ')
      .map(Number)
    console.log(`a site flooding ${siteFlowShare + 500} UDP flows: ${sent} sent, ${refused} refused`)
    expect(sent).toBeLessThanOrEqual(siteFlowShare)
    expect(refused).toBeGreaterThanOrEqual(500)
    // Another site's share is its own.
    const target = `tcp://${far}:${farPort}`
    expect((await fromProgram([target], other.id))[target]).toMatchObject({ open: true, said: 'outside' })
  })
})
