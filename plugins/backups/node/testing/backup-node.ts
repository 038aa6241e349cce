// Fixtures of the backups node service's tests: a serving node running the backups module with its services started,
// sites provisioned on it, runs carried out to their outcome, real MariaDB and PostgreSQL databases with the logins a
// backup and a restore use (made as the servers' administrators, unique names), and what a site's files are.

import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import {
  freePort,
  never,
  nodeWith,
  type PlinthNode,
  removeNodeLeftovers,
  servingDataDir,
  sitePaths,
  siteSpec,
} from '../../../../hosts/testing/index.ts'
import type { SiteSpec } from '../../../nodes/node/contract.ts'
import backupsNodeModule from '../index.ts'
import type { BackupTask, DatabaseLogin, RunOutcome, RunRead } from '../protocol.ts'

/** Where a site is on the node. */
export interface TestSite {
  readonly home: string
  readonly htdocs: string
  readonly user: { readonly name: string; readonly uid: number; readonly gid: number }
}

/** A node with the backups service started, over a fresh data directory. */
export interface BackupNode {
  readonly node: PlinthNode
  readonly dataDir: string
  /** The service's own folder. */
  readonly serviceDir: string
  /** A static site named after `name`; `overrides` change its spec (a small `diskMB`). */
  provision(name: string, overrides?: Partial<SiteSpec>): Promise<{ spec: SiteSpec; site: TestSite }>
  call(siteId: string, request: unknown): Promise<unknown>
  /** Starts `task` and reads until its outcome, answering it, every step seen, and when each was first seen (ms). */
  run(
    siteId: string,
    task: BackupTask,
  ): Promise<{ outcome: RunOutcome; steps: string[]; timeline: Record<string, number>; ms: number }>
  close(): Promise<void>
}

export async function startBackupNode(prefix: string): Promise<BackupNode> {
  const dataDir = servingDataDir(prefix)
  chmodSync(dataDir, 0o711)
  const node = await nodeWith([backupsNodeModule], { dataDir, httpPort: freePort(), httpsPort: freePort() })
  const stop = await node.startServices(() => {})
  const specs: SiteSpec[] = []
  const call = (siteId: string, request: unknown) =>
    node.run({ operation: 'call', payload: { siteId, service: 'backups', request } }, never())
  return {
    node,
    dataDir,
    serviceDir: join(dataDir, 'services', 'backups'),
    async provision(name, overrides = {}) {
      const suffix = Math.random().toString(36).slice(2, 8)
      const spec = siteSpec({
        id: `site_bk${name}${suffix}`,
        handle: `bk-${name}-${suffix}`,
        domain: `bk-${name}-${suffix}.example.com`,
        ...overrides,
      })
      await node.run({ operation: 'provision', payload: spec }, never())
      specs.push(spec)
      const paths = sitePaths(dataDir, spec)
      return { spec, site: { home: paths.home, htdocs: paths.htdocs, user: unixUser(paths.user) } }
    },
    call,
    async run(siteId, task) {
      const began = performance.now()
      const { runId } = (await call(siteId, { op: 'run.start', run: task })) as { runId: string }
      const steps: string[] = []
      const timeline: Record<string, number> = {}
      for (;;) {
        const read = (await call(siteId, { op: 'run.read', runId, waitMs: 10_000 })) as RunRead
        if (steps.at(-1) !== read.step) steps.push(read.step)
        timeline[read.step] ??= Math.round(performance.now() - began)
        if (read.outcome)
          return { outcome: read.outcome, steps, timeline, ms: Math.round(performance.now() - began) }
      }
    },
    async close() {
      await stop()
      for (const spec of specs) await node.runtime.delete(spec, never()).catch(() => {})
      await node.runtime.stop().catch(() => {})
      removeNodeLeftovers(dataDir)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

function unixUser(name: string) {
  const line = Bun.spawnSync(['getent', 'passwd', name]).stdout.toString().trim()
  const [, , uid, gid] = line.split(':')
  return { name, uid: Number(uid), gid: Number(gid) }
}

/** What a folder holds: each entry by its path under it, a file as its SHA-256, a link as its target. */
export function contentsOf(
  dir: string,
  skip: (path: string) => boolean = () => false,
): Record<string, string> {
  const found: Record<string, string> = {}
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name)
      const key = `/${relative(dir, path)}`
      if (skip(key)) continue
      const stats = lstatSync(path)
      if (stats.isSymbolicLink()) found[key] = `link:${readlinkSync(path)}`
      else if (stats.isDirectory()) {
        found[key] = 'dir'
        walk(path)
      } else found[key] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(dir)
  return found
}

/** Runs a shell command as root; throws with its output when it fails. */
export function sh(command: string, env: Record<string, string> = {}): string {
  const result = Bun.spawnSync(['/bin/sh', '-c', command], { env: { ...process.env, ...env } })
  if (result.exitCode !== 0)
    throw new Error(`${command} failed: ${result.stderr.toString()}${result.stdout.toString()}`)
  return result.stdout.toString()
}

/** SQL run as MariaDB's administrator (127.0.0.1:3306, root without a password). */
export const mariadb = (sql: string, database = '') =>
  sh(
    `mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P3306 -uroot --batch --skip-column-names ${database} -e "$SQL"`,
    {
      SQL: sql,
    },
  )
/** SQL run as PostgreSQL's administrator (127.0.0.1:5432, trust). */
export const postgres = (sql: string, database = 'postgres') =>
  sh(`psql -X -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p 5432 -U postgres -d ${database} -c "$SQL"`, {
    SQL: sql,
  })

/** A site's database on one engine, with the logins a backup and a restore are given. */
export interface TestDatabase {
  readonly databaseId: string
  readonly engine: 'mariadb' | 'postgresql'
  readonly name: string
  /** Reads the database (a backup's dump). */
  readonly reader: DatabaseLogin
  /** Replaces its tables (a restore). */
  readonly writer: DatabaseLogin
  /** Owns an empty scratch database (a backup's test restore). */
  readonly scratch: DatabaseLogin
  /** Rows of `posts`, as `id:title` sorted. */
  rows(): string[]
  sql(statement: string): string
  drop(): void
}

const login = (
  engine: DatabaseLogin['engine'],
  database: string,
  username: string,
  password: string,
): DatabaseLogin => ({
  engine,
  host: '127.0.0.1',
  port: engine === 'mariadb' ? 3306 : 5432,
  database,
  username,
  password,
})

/** A MariaDB database `posts` (3 rows) and a view, a reader with `SELECT, SHOW VIEW`, a writer, a scratch database. */
export function mariadbDatabase(tag: string): TestDatabase {
  const name = `bkt_${tag}_${Math.random().toString(36).slice(2, 8)}`
  const users = { reader: `${name}_r`, writer: `${name}_w`, scratch: `${name}_s` }
  const password = `pw-${crypto.randomUUID()}`
  mariadb(`CREATE DATABASE ${name}; CREATE DATABASE ${name}_scratch;
    CREATE TABLE ${name}.posts (id INT PRIMARY KEY, title VARCHAR(200));
    INSERT INTO ${name}.posts VALUES (1, 'hello'), (2, 'world'), (3, 'again');
    CREATE TABLE ${name}.options (name VARCHAR(64) PRIMARY KEY, value TEXT);
    INSERT INTO ${name}.options VALUES ('siteurl', 'https://a.example');
    CREATE VIEW ${name}.titles AS SELECT title FROM ${name}.posts;
    CREATE USER '${users.reader}'@'%' IDENTIFIED BY '${password}';
    GRANT SELECT, SHOW VIEW ON \`${name.replaceAll('_', '\\_')}\`.* TO '${users.reader}'@'%';
    CREATE USER '${users.writer}'@'%' IDENTIFIED BY '${password}';
    GRANT ALL ON \`${name.replaceAll('_', '\\_')}\`.* TO '${users.writer}'@'%';
    CREATE USER '${users.scratch}'@'%' IDENTIFIED BY '${password}';
    GRANT ALL ON \`${name.replaceAll('_', '\\_')}\\_scratch\`.* TO '${users.scratch}'@'%';`)
  return {
    databaseId: `db_${name}`,
    engine: 'mariadb',
    name,
    reader: login('mariadb', name, users.reader, password),
    writer: login('mariadb', name, users.writer, password),
    scratch: login('mariadb', `${name}_scratch`, users.scratch, password),
    rows: () =>
      mariadb(`SELECT CONCAT(id, ':', title) FROM ${name}.posts ORDER BY id`).split('\n').filter(Boolean),
    sql: (statement) => mariadb(statement, name),
    drop() {
      mariadb(`DROP DATABASE IF EXISTS ${name}; DROP DATABASE IF EXISTS ${name}_scratch;
        DROP USER IF EXISTS '${users.reader}'@'%', '${users.writer}'@'%', '${users.scratch}'@'%';`)
    },
  }
}

/** The same on PostgreSQL: the writer owns the database, the reader may select, the scratch login owns its own. */
export function postgresDatabase(tag: string): TestDatabase {
  const name = `bkt_${tag}_${Math.random().toString(36).slice(2, 8)}`
  const users = { reader: `${name}_r`, writer: `${name}_w`, scratch: `${name}_s` }
  const password = `pw-${crypto.randomUUID()}`
  postgres(`CREATE ROLE ${users.writer} LOGIN PASSWORD '${password}'`)
  postgres(`CREATE ROLE ${users.reader} LOGIN PASSWORD '${password}'`)
  postgres(`CREATE ROLE ${users.scratch} LOGIN PASSWORD '${password}'`)
  postgres(`CREATE DATABASE ${name} OWNER ${users.writer}`)
  postgres(`CREATE DATABASE ${name}_scratch OWNER ${users.scratch}`)
  const asWriter = (statement: string) =>
    sh(`psql -X -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p 5432 -U ${users.writer} -d ${name} -c "$SQL"`, {
      SQL: statement,
    })
  asWriter(`CREATE TABLE posts (id INT PRIMARY KEY, title TEXT);
    INSERT INTO posts VALUES (1, 'hello'), (2, 'world'), (3, 'again');
    CREATE TABLE options (name TEXT PRIMARY KEY, value TEXT);
    INSERT INTO options VALUES ('siteurl', 'https://a.example');
    CREATE SEQUENCE counter; CREATE VIEW titles AS SELECT title FROM posts;
    GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${users.reader};
    GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO ${users.reader};`)
  return {
    databaseId: `db_${name}`,
    engine: 'postgresql',
    name,
    reader: login('postgresql', name, users.reader, password),
    writer: login('postgresql', name, users.writer, password),
    scratch: login('postgresql', `${name}_scratch`, users.scratch, password),
    rows: () => asWriter(`SELECT id || ':' || title FROM posts ORDER BY id`).split('\n').filter(Boolean),
    sql: asWriter,
    drop() {
      postgres(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      postgres(`DROP DATABASE IF EXISTS ${name}_scratch WITH (FORCE)`)
      postgres(`DROP ROLE IF EXISTS ${users.reader}, ${users.writer}, ${users.scratch}`)
    },
  }
}
