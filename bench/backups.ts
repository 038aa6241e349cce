// Backups of WordPress sites on one node, through the node's `backups` service and real restic, to a repository on the
// node's own disk (the default target): the first and the second (incremental) backup of a site with 1,000 posts and
// 200 MB of uploads (time, bytes stored), a full restore of it, and then a night of 50 sites' backups taken as the
// schedule takes them (a few at once per node), with the time it takes, the node's peak memory and the sites' front
// page p99 meanwhile against the same requests quiet. Every backup here is verified as every backup is (restic's check
// on a sample, a test restore of the dump, sampled files compared).
// `npm run bench:backups` (as root, with nginx, php-fpm, php-mysql, wordpress, restic and MariaDB on 127.0.0.1:3306).
// BACKUP_SITES (50), BACKUP_CONCURRENCY (the schedule's per-node cap), BACKUP_UPLOADS_MB (200).

import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, nodeWith, requestSite as request } from '../hosts/testing/index.ts'
import backupsNodeModule from '../plugins/backups/node/index.ts'
import type {
  BackupTask,
  DatabaseLogin,
  RunOutcome,
  RunRead,
  RunStarted,
} from '../plugins/backups/node/protocol.ts'
import { resolvePolicyOptions } from '../plugins/backups/policies/index.ts'
import type { SiteSpec } from '../plugins/nodes/node/contract.ts'
import { sitePaths } from '../plugins/nodes/node/testing/serving.ts'
import wordpressNodeModule from '../plugins/wordpress/node/index.ts'
import { percentile } from './standalone.ts'

const siteCount = Number(process.env.BACKUP_SITES ?? 50)
const concurrency = Number(process.env.BACKUP_CONCURRENCY ?? resolvePolicyOptions({}).backupsPerNode)
const uploadsMB = Number(process.env.BACKUP_UPLOADS_MB ?? 200)
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-backups-bench-'))
const port = freePort()
const node = await nodeWith([wordpressNodeModule, backupsNodeModule], {
  dataDir,
  httpPort: port,
  httpsPort: freePort(),
})
const { runtime } = node
const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
const run = crypto.randomUUID().replaceAll('-', '').slice(0, 6)
const never = new AbortController().signal
const databases: string[] = []
const users: string[] = []
const sitesMade: SiteSpec[] = []

/** A WordPress site spec with its own database `name` (made here as the databases plugin would). */
async function wordpressSite(index: number): Promise<{ spec: SiteSpec; database: string }> {
  const database = `bkb_${run}_${index}`
  await root.query('CREATE DATABASE ??', [database])
  await root.query('CREATE USER ?@? IDENTIFIED BY ?', [database, '127.0.0.1', 'Bench-Db-2026'])
  await root.query('GRANT ALL ON ??.* TO ?@?', [database, database, '127.0.0.1'])
  databases.push(database)
  users.push(database)
  const passwordHash = (
    await Bun.password.hash('Bench-Admin-2026', { algorithm: 'bcrypt', cost: 4 })
  ).replace(/^\$2b\$/, '$2y$')
  const spec: SiteSpec = {
    id: `site_bkb_${run}_${index}`,
    handle: `bkb-${run}-${index}`,
    domain: `bkb-${run}-${index}.example.test`,
    type: 'wordpress',
    customerId: `cus_bkb_${index}`,
    diskMB: 2048,
    app: {
      kind: 'wordpress',
      settings: {
        title: `Bench ${index}`,
        database: {
          host: '127.0.0.1',
          port: 3306,
          name: database,
          user: database,
          password: 'Bench-Db-2026',
        },
        admin: { user: 'admin', email: 'admin@example.test', passwordHash },
      },
    },
  }
  sitesMade.push(spec)
  // Another node's runtime on this machine (a test running meanwhile) may take the same new Unix uid at the same
  // moment: the second useradd fails, and provisioning again picks another.
  await runtime.provision(spec, never).catch(() => runtime.provision(spec, never))
  return { spec, database }
}

/** `posts` published posts of a few paragraphs each, written as WordPress writes them. */
async function addPosts(database: string, posts: number, from = 0): Promise<void> {
  const body = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(40)
  const rows = Array.from({ length: posts }, (_, i) => {
    const n = from + i
    return [
      1,
      '2026-11-01 00:00:00',
      '2026-11-01 00:00:00',
      `${body} ${n}`,
      `Post ${n}`,
      '',
      'publish',
      `post-${n}`,
      '',
      '',
      '2026-11-01 00:00:00',
      '2026-11-01 00:00:00',
      '',
      'post',
      '',
    ]
  })
  for (let i = 0; i < rows.length; i += 200)
    await root.query(
      `INSERT INTO ??.wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type, guid) VALUES ?`,
      [database, rows.slice(i, i + 200)],
    )
}

/** `megabytes` of uploads in 1 MB files of random bytes (photos do not compress either), the site's user's. */
function addUploads(spec: SiteSpec, megabytes: number, name: string): void {
  const htdocs = sitePaths(dataDir, spec).htdocs
  const owner = statSync(htdocs)
  const folder = join(htdocs, 'wp-content', 'uploads', '2026', name)
  mkdirSync(folder, { recursive: true })
  for (const dir of [
    join(htdocs, 'wp-content', 'uploads'),
    join(htdocs, 'wp-content', 'uploads', '2026'),
    folder,
  ])
    chownSync(dir, owner.uid, owner.gid)
  for (let i = 0; i < megabytes; i++) {
    const file = join(folder, `photo-${i}.jpg`)
    writeFileSync(file, crypto.getRandomValues(new Uint8Array(1024 * 1024)))
    chownSync(file, owner.uid, owner.gid)
  }
}

/** A login for the run, as the databases plugin leases one (here: root's grant to a throwaway user). */
async function login(database: string): Promise<DatabaseLogin> {
  const username = `${database}_l`.slice(0, 32)
  await root.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [
    username,
    '127.0.0.1',
    'Bench-Lease-2026',
  ])
  await root.query('GRANT ALL ON ??.* TO ?@?', [database, username, '127.0.0.1'])
  users.push(username)
  return {
    engine: 'mariadb',
    host: '127.0.0.1',
    port: 3306,
    database,
    username,
    password: 'Bench-Lease-2026',
  }
}

/** An empty scratch database with a login, for the test restore of a dump. */
async function scratch(database: string): Promise<DatabaseLogin> {
  const name = `${database}_s`
  await root.query('DROP DATABASE IF EXISTS ??', [name])
  await root.query('CREATE DATABASE ??', [name])
  databases.push(name)
  return login(name)
}

/** Runs a task of the node's `backups` service for `siteId` to its end. */
async function task(siteId: string, work: BackupTask): Promise<RunOutcome> {
  const call = (request: unknown) => runtime.call({ siteId, service: 'backups', request }, never)
  const { runId } = (await call({ op: 'run.start', run: work })) as RunStarted
  for (;;) {
    const read = (await call({ op: 'run.read', runId, waitMs: 1000 })) as RunRead
    if (read.outcome) return read.outcome
  }
}

const repositoryOf = (spec: SiteSpec) => ({
  location: { kind: 'local' as const, name: spec.id },
  password: `bench-${spec.id}`,
})

async function backup(spec: SiteSpec, database: string, n: number) {
  const outcome = await task(spec.id, {
    task: 'backup',
    backupId: `bkp_bench_${run}_${spec.handle}_${n}`,
    repository: repositoryOf(spec),
    files: true,
    databases: [
      { databaseId: `db_${database}`, login: await login(database), scratch: await scratch(database) },
    ],
    record: { type: 'wordpress', domain: spec.domain },
    verify: { readDataPercent: 10, sampleFiles: 20 },
  })
  if (!outcome.ok) throw new Error(`backup of ${spec.domain} failed: ${outcome.code}: ${outcome.message}`)
  if (outcome.task !== 'backup') throw new Error('not a backup outcome')
  return outcome
}

/** The front pages of `sites`, requested one after another until `until` says stop: each request's ms. */
async function frontPages(sites: readonly SiteSpec[], until: () => boolean): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; !until(); i++) {
    const site = sites[i % sites.length] as SiteSpec
    const started = performance.now()
    const answer = await request(port, site.domain, '/')
    await answer.arrayBuffer()
    if (answer.status !== 200) throw new Error(`${site.domain} answered ${answer.status}`)
    times.push(performance.now() - started)
  }
  return times
}

/** MemAvailable in MiB. */
function memAvailableMiB(): number {
  const line = readFileSync('/proc/meminfo', 'utf8').match(/^MemAvailable:\s+(\d+) kB/m)
  return Number(line?.[1] ?? 0) / 1024
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

let stopServices = async () => {}
try {
  await runtime.start()
  stopServices = await node.startServices(() => {})
  // One site with 1,000 posts and 200 MB of uploads.
  const big = await wordpressSite(0)
  await addPosts(big.database, 1000)
  addUploads(big.spec, uploadsMB, 'big')
  let started = performance.now()
  const first = await backup(big.spec, big.database, 1)
  const firstMs = performance.now() - started
  await addPosts(big.database, 10, 1000)
  addUploads(big.spec, 5, 'new')
  started = performance.now()
  const second = await backup(big.spec, big.database, 2)
  const secondMs = performance.now() - started
  started = performance.now()
  const restored = await task(big.spec.id, {
    task: 'restore',
    repository: repositoryOf(big.spec),
    snapshotId: first.snapshotId,
    files: true,
    keep: [],
    databases: [{ databaseId: `db_${big.database}`, into: await login(big.database) }],
  })
  const restoreMs = performance.now() - started
  if (!restored.ok) throw new Error(`restore failed: ${restored.code}: ${restored.message}`)
  console.log(`site of 1,000 posts and ${uploadsMB} MB of uploads (${mb(first.sizeBytes)} in all):`)
  console.log(`  first backup    ${seconds(firstMs).padStart(8)}   stored ${mb(first.storedBytes)}`)
  console.log(
    `  second backup   ${seconds(secondMs).padStart(8)}   stored ${mb(second.storedBytes)} (10 posts and 5 MB of uploads new)`,
  )
  console.log(`  full restore    ${seconds(restoreMs).padStart(8)}   (files and database, from the first)`)
  console.log(`  repository      ${mb(second.repositoryBytes)}`)

  // A night of `siteCount` sites, each with 100 posts and 10 MB of uploads, `concurrency` at once.
  const sites = [big]
  for (let i = 1; i < siteCount; i++) {
    const site = await wordpressSite(i)
    await addPosts(site.database, 100)
    addUploads(site.spec, 10, 'night')
    sites.push(site)
  }
  const specs = sites.map((site) => site.spec)
  // Every site's PHP workers started and its OPcache filled first (three rounds of front pages), so the quiet
  // figures are of warm sites, as the night's are.
  let rounds = 0
  await frontPages(specs, () => rounds++ >= specs.length * 3)
  const quietEnd = Date.now() + 20_000
  const quiet = await frontPages(specs, () => Date.now() > quietEnd)
  const memoryBefore = memAvailableMiB()
  let lowest = memoryBefore
  let done = false
  const sampler = (async () => {
    while (!done) {
      lowest = Math.min(lowest, memAvailableMiB())
      await Bun.sleep(200)
    }
  })()
  started = performance.now()
  const queue = [...sites]
  const night = Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let site = queue.shift(); site; site = queue.shift()) await backup(site.spec, site.database, 3)
    }),
  ).finally(() => {
    done = true
  })
  const loud = await frontPages(specs, () => done)
  await night
  const nightMs = performance.now() - started
  await sampler
  console.log(`a night of ${siteCount} sites' backups, ${concurrency} at once: ${seconds(nightMs)}`)
  console.log(`  node memory: ${mb((memoryBefore - lowest) * 1024 * 1024)} more in use at the peak`)
  console.log(
    `  front pages: p50 ${percentile(quiet, 0.5).toFixed(1)} → ${percentile(loud, 0.5).toFixed(1)} ms, p99 ${percentile(quiet, 0.99).toFixed(1)} → ${percentile(loud, 0.99).toFixed(1)} ms (quiet → during), ${loud.length} requests`,
  )
} finally {
  for (const site of sitesMade) await runtime.delete(site, never).catch(() => {})
  await stopServices()
  await runtime.stop()
  for (const database of databases) await root.query('DROP DATABASE IF EXISTS ??', [database]).catch(() => {})
  for (const user of users) await root.query('DROP USER IF EXISTS ?@?', [user, '127.0.0.1']).catch(() => {})
  await root.end()
  rmSync(dataDir, { recursive: true, force: true })
}
