// A site's network is its own: its processes (its PHP in its pool, its jobs and shell, all run as its Unix user)
// reach the internet and the node's database server, and nothing else of the node's own addresses, loopback and
// link-local (the panel, `/metrics`, Redis or PostgreSQL listening on 127.0.0.1, cloud metadata), nor the panel's
// address. The kernel holds them back: an nftables table of the runtime's own matching the sockets of its sites'
// users, loaded when the runtime starts and again whenever what the sites may reach changes (a site's user made or
// removed, the database server's port known). Where it cannot be loaded, the node says so and why.

import { lookup } from 'node:dns/promises'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import type { LimitEnforcement, NodeLack, NodeService, NodeServiceHost, SiteEndpoint } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import { outputOf, run } from './commands.ts'
import { serialized } from './lock.ts'
import {
  deleteRules,
  networkRules,
  networkTableName,
  type SiteReach,
  type SiteServer,
} from './network-rules.ts'
import { readSiteState } from './site-state.ts'

/** What the closure reads what the sites may reach from. */
export interface SiteNetworkSettings {
  readonly dataDir: string
  /** Where the sites' homes are: the users whose home is one of them are the sites'. */
  readonly sitesDir: string
  /**
   * Where the ports the node's services served the sites on when they last started are kept (root's): until this
   * process's services started again, the table keeps them open. Without it, only what the services say now.
   */
  readonly servicePortsFile?: string
  /** Where each service keeps its files (`<servicesDir>/<name>`), which its `sitePortsAtRest` reads. */
  readonly servicesDir?: string
  /** Whether the sites run code as users of their own (the runtime serves and runs as root). */
  readonly unixUsers: boolean
  readonly servable: boolean
  readonly root: boolean
  readonly httpPort: number
  readonly httpsPort: number
  /** The panel's host (an agent's `PANEL_URL`'s): closed to the sites on every port. */
  readonly panelHost?: string
  /** The node's services: each names the ports of the node it serves the sites on (the database server's). */
  readonly services: () => readonly NodeService[]
  /** Where the node's resolvers are named. Default `/etc/resolv.conf`. */
  readonly resolvConf?: string
}

/** The closure of a runtime's sites' network. */
export interface SiteNetwork {
  /** The table's name (`inet` family). */
  readonly table: string
  /**
   * Loads the table for what the sites may reach now, unless the one loaded last says the same (with `check`: and
   * is still there, not flushed by a firewall's reload since). Never throws: a failure is told in `enforcement()`,
   * and on `log` when given.
   */
  apply(options?: {
    readonly check?: boolean
    readonly log?: NodeServiceHost['log']
    /** A site being applied: its user and the servers its application names, before its `state.json` says so. */
    readonly site?: PendingSite
    /** A site whose user was just removed. */
    readonly removed?: string
    /** The node's services started: the ports they name now are theirs (and recorded for the next start). */
    readonly servicesStarted?: boolean
  }): Promise<void>
  /** Whether the sites are held back now, and how, or why not. */
  enforcement(): LimitEnforcement
  /** What the node lacks for it (nftables), told with its `missing`. */
  lacks(): NodeLack[]
  /** Deletes the table (the runtime stopped: its tests, a benchmark). */
  remove(): Promise<void>
}

/** A site being applied, as the closure takes it before its `state.json` is written. */
export interface PendingSite {
  readonly id: string
  readonly uid: number
  readonly reaches: readonly SiteEndpoint[]
}

/** Where Debian puts `nft`, or null when it is not installed. */
function nftPath(): string | null {
  return ['/usr/sbin/nft', '/sbin/nft', '/usr/bin/nft'].find((path) => existsSync(path)) ?? null
}

/**
 * The users whose home is one below `sitesDir`, the sites' users (`unix-users.ts` makes them so): their uids by
 * home.
 */
async function siteUsers(sitesDir: string): Promise<Map<string, number>> {
  const result = await run(['getent', 'passwd'])
  if (result.code !== 0) throw new Error(`getent passwd failed: ${outputOf(result)}`)
  const users = new Map<string, number>()
  for (const line of result.stdout.split('\n')) {
    const fields = line.split(':')
    const uid = Number(fields[2])
    const home = fields[5]
    if (home && Number.isInteger(uid) && uid > 0 && dirname(resolve(home)) === sitesDir)
      users.set(resolve(home), uid)
  }
  return users
}

/** The servers each site's `state.json` names, by site id (sites without any left out). */
async function recordedReaches(sitesDir: string): Promise<Map<string, readonly SiteEndpoint[]>> {
  const reaches = new Map<string, readonly SiteEndpoint[]>()
  for (const name of await readdir(sitesDir).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue
    const state = await readSiteState(join(sitesDir, name, 'state.json')).catch(() => null)
    if (state?.siteId === name && state.reaches?.length) reaches.set(name, state.reaches)
  }
  return reaches
}

/** The ports `path` records (none when it is missing or holds anything but a list of ports). */
async function recordedPorts(path: string | undefined): Promise<number[]> {
  if (!path) return []
  try {
    const ports: unknown = JSON.parse(await readFile(path, 'utf8'))
    return Array.isArray(ports)
      ? ports.filter((port): port is number => Number.isInteger(port) && port > 0 && port < 65_536)
      : []
  } catch {
    return []
  }
}

/** The nameservers `resolvConf` names. */
async function resolversOf(resolvConf: string): Promise<string[]> {
  const text = await readFile(resolvConf, 'utf8').catch(() => '')
  return [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].flatMap((match) => (match[1] ? [match[1]] : []))
}

/** `host`'s addresses: itself when it is one, else what it resolves to. */
async function addressesOf(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '')
  if (isIP(bare)) return [bare]
  return (await lookup(bare, { all: true })).map((entry) => entry.address)
}

/** The closure of the sites of the runtime `settings` describe. */
export function siteNetwork(settings: SiteNetworkSettings): SiteNetwork {
  const table = networkTableName(settings.dataDir)
  const sitesDir = resolve(settings.sitesDir)
  /** The script loaded last, or null: none yet, or deleted. */
  let loaded: string | null = null
  let failure: string | null = null
  /** What the closure could not close, said with how it enforces the rest. */
  let unresolved: string | null = null
  /** The panel's addresses as last resolved: looked up again by the periodic check only, not by every site's change. */
  let panelAddresses: string[] | null = null
  /** Sites applied by this process, by id: what they reach may be ahead of their `state.json`. */
  const pending = new Map<string, PendingSite>()
  /**
   * Whether this process's services started. Until then a service says no port (the database server's is known
   * once it runs), and a node starting again (a restart, an upgrade moving its sites, a reboot) would refuse its
   * sites their database for as long as its start takes: the ports recorded at the last start stay open meanwhile.
   */
  let servicesStarted = false

  /** The servers each site may reach besides every site's, by its uid, their hosts resolved. */
  async function siteServers(users: ReadonlyMap<string, number>): Promise<SiteServer[]> {
    const bySite = new Map<string, { uid: number; reaches: readonly SiteEndpoint[] }>()
    for (const [id, reaches] of await recordedReaches(sitesDir)) {
      const uid = users.get(join(sitesDir, id))
      if (uid !== undefined) bySite.set(id, { uid, reaches })
    }
    for (const site of pending.values()) bySite.set(site.id, site)
    const servers: SiteServer[] = []
    // Sites share their database server: each name looked up once per load.
    const lookups = new Map<string, Promise<string[]>>()
    for (const { uid, reaches } of bySite.values())
      for (const { host, port } of reaches) {
        // A name that does not resolve now lets nothing through; the next load tries again.
        if (!lookups.has(host))
          lookups.set(
            host,
            addressesOf(host).catch(() => []),
          )
        for (const address of (await lookups.get(host)) ?? []) servers.push({ uid, address, port })
      }
    return servers
  }

  async function reachNow(resolveAgain: boolean): Promise<SiteReach> {
    const named = settings.services().flatMap((service) => service.sitePorts?.() ?? [])
    const atRest = settings
      .services()
      .flatMap((service) =>
        settings.servicesDir
          ? (service.sitePortsAtRest?.(join(settings.servicesDir, service.name)) ?? [])
          : [],
      )
    const servicePorts = servicesStarted
      ? named
      : [...new Set([...named, ...atRest, ...(await recordedPorts(settings.servicePortsFile))])]
    if (settings.panelHost && (panelAddresses === null || resolveAgain)) {
      try {
        panelAddresses = await addressesOf(settings.panelHost)
        unresolved = null
      } catch (error) {
        // The addresses resolved before stay closed.
        unresolved = `the panel's address (${settings.panelHost}) could not be resolved to close it: ${(error as Error).message}`
      }
    }
    const closed = panelAddresses ?? []
    const users = await siteUsers(sitesDir)
    return {
      siteUids: [...users.values(), ...[...pending.values()].map((site) => site.uid)],
      siteServers: await siteServers(users),
      ports: [settings.httpPort, settings.httpsPort, ...servicePorts],
      resolvers: await resolversOf(settings.resolvConf ?? '/etc/resolv.conf'),
      closed,
    }
  }

  async function nft(script: string): Promise<void> {
    const nft = nftPath()
    if (!nft) throw new Error('nft is not installed')
    const result = await run([nft, '-f', '-'], { stdin: script, timeoutMs: 30_000 })
    if (result.code !== 0) throw new Error(`nft refused the table: ${outputOf(result)}`)
  }

  async function present(): Promise<boolean> {
    const nft = nftPath()
    return nft !== null && (await run([nft, 'list', 'table', 'inet', table])).code === 0
  }

  const locked = <T>(task: () => Promise<T>) => serialized(`${settings.dataDir}#network`, task)

  return {
    table,
    apply: ({ check = false, log, site, removed, servicesStarted: started = false } = {}) =>
      locked(async () => {
        if (site) pending.set(site.id, site)
        if (removed) pending.delete(removed)
        if (!settings.unixUsers || !nftPath()) return
        try {
          if (started && settings.servicePortsFile) {
            const ports = settings.services().flatMap((service) => service.sitePorts?.() ?? [])
            await writeFileAtomic(
              settings.servicePortsFile,
              `${JSON.stringify(ports)}\n`,
              new AbortController().signal,
              0o600,
            )
          }
          if (started) servicesStarted = true
          const script = networkRules(table, await reachNow(check))
          const gone = check && loaded !== null && !(await present())
          if (script === loaded && !gone) return
          await nft(script)
          if (gone)
            log?.(
              'warn',
              { table },
              `the sites' network table ${table} was gone (a firewall's reload?): loaded again`,
            )
          loaded = script
          failure = null
        } catch (error) {
          const message = (error as Error).message
          if (message !== failure)
            log?.('error', { table, err: message }, `the sites' network could not be closed: ${message}`)
          failure = message
        }
      }),
    enforcement() {
      if (!settings.servable)
        return { enforced: false, how: 'no site runs code on this node (its files are only laid out)' }
      if (!settings.root)
        return {
          enforced: false,
          how: 'the node does not run as root: its sites run as its own user, which no rule can tell from it',
        }
      if (!nftPath())
        return {
          enforced: false,
          how: 'nft is not installed (Debian’s nftables): the sites reach the node’s own addresses',
        }
      // Within what the panel keeps of it (300 characters).
      if (failure)
        return { enforced: false, how: failure.length > 300 ? `${failure.slice(0, 299)}…` : failure }
      if (loaded === null) return { enforced: false, how: 'not closed yet: the node has not started serving' }
      const how = `nftables by site uid (table inet ${table})${unresolved ? `; but ${unresolved}` : ''}`
      return { enforced: true, how: how.length > 300 ? `${how.slice(0, 299)}…` : how }
    },
    lacks: () =>
      settings.servable && settings.root && !nftPath()
        ? [{ what: 'nftables', for: 'keeping sites off the node’s own addresses' }]
        : [],
    remove: () =>
      locked(async () => {
        if (!nftPath()) return
        await nft(deleteRules(table))
        loaded = null
      }),
  }
}
