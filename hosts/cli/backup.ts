// `backup` and `restore`: a consistent snapshot of the embedded SQLite store taken while the server runs (SQLite's
// VACUUM INTO reads one snapshot of the database and writes it whole), with the secret beside it; and putting one
// back into a DATA_DIR no panel has open.

import { Database } from 'bun:sqlite'
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, resolve } from 'node:path'
import { SettingsError, type StandardSettings } from '../settings.ts'
import { installationProblems, secretPathOf, storePathOf } from '../standard-panel.ts'
import { CliError, StartupFailure } from './cli-error.ts'

/** Where a snapshot's secret is kept: beside it, `FILE.secret.key`. */
export function backupSecretPathOf(file: string): string {
  return `${file}.secret.key`
}

/** Backup and restore are of the embedded store; a PostgreSQL deployment uses its own tools. */
function refusePostgres(env: Readonly<Record<string, string | undefined>>, what: string): void {
  if (env.DATABASE_URL)
    throw new CliError(
      `${what} copies the embedded SQLite store, and DATABASE_URL selects PostgreSQL: use pg_dump and pg_restore, and keep the secret (DATA_DIR/secret.key or PLINTH_SECRET) with the dump`,
    )
}

/** Writes `content` to `path` (mode 0600), refusing to replace anything there. */
function writeNew(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600, flag: 'wx' })
}

/** Moves a finished temporary file into place without replacing anything there (link, then unlink). */
function publish(temporary: string, path: string): void {
  try {
    linkSync(temporary, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CliError(`${path} appeared while the backup was written; nothing was replaced`)
    throw error
  } finally {
    unlinkSync(temporary)
  }
}

/** Whether `path` is a SQLite database holding a Plinth store; the reason when it is not. */
function plinthStoreProblem(path: string): string | null {
  const header = Buffer.alloc(16)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, header, 0, 16, 0)
  } finally {
    closeSync(fd)
  }
  if (header.toString('latin1') !== 'SQLite format 3\u0000') return 'it is not a SQLite database'
  const db = new Database(path, { readonly: true })
  try {
    const check = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()
    if (check.length !== 1 || check[0]?.integrity_check !== 'ok')
      return `it fails SQLite's integrity check (${check.map((row) => row.integrity_check).join('; ')})`
    const table = db
      .query<{ name: string }, []>(
        "select name from sqlite_master where type = 'table' and name = 'plinth_migrations'",
      )
      .get()
    const kernel =
      table &&
      db
        .query<{ id: string }, []>(
          "select id from plinth_migrations where owner = 'kernel' and id = '0001_identity_audit_outbox'",
        )
        .get()
    return kernel ? null : 'it is a SQLite database but not a Plinth store (no kernel migrations recorded)'
  } catch (error) {
    return `it cannot be read as a SQLite database (${(error as Error).message})`
  } finally {
    db.close()
  }
}

/**
 * `backup --to FILE`: a consistent snapshot of the store while the server may be running (VACUUM INTO reads one
 * snapshot, so writes meanwhile are either wholly in it or not at all), written to FILE with mode 0600, and the
 * secret to FILE.secret.key (0600) unless it is PLINTH_SECRET. Never replaces an existing file.
 */
export async function backup(
  settings: StandardSettings,
  env: Readonly<Record<string, string | undefined>>,
  to: string,
) {
  refusePostgres(env, 'backup')
  const missing = await installationProblems(settings)
  if (missing.length > 0) throw new StartupFailure(new SettingsError(missing))
  const target = resolve(to)
  const secretTarget = backupSecretPathOf(target)
  for (const path of [target, secretTarget])
    if (existsSync(path))
      throw new CliError(`${path} already exists: backup never replaces a file; name another`)
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  const partial = `${target}.partial-${process.pid}`
  const secretPartial = `${secretTarget}.partial-${process.pid}`
  // Made empty with mode 0600 first: VACUUM INTO fills an empty file, and the copy is never readable by others.
  writeNew(partial, '')
  try {
    const store = new Database(storePathOf(settings.dataDir))
    try {
      store.exec('PRAGMA busy_timeout = 5000')
      store.query('VACUUM INTO ?').run(partial)
    } finally {
      store.close()
    }
    const problem = plinthStoreProblem(partial)
    if (problem) throw new CliError(`The snapshot failed its check: ${problem}; nothing was kept`)
    const lines = [
      `Backed up ${storePathOf(settings.dataDir)} to ${target} (${statSync(partial).size} bytes)`,
    ]
    if (settings.secret) {
      publish(partial, target)
      lines.push(
        'The secret is PLINTH_SECRET, which this installation sets: keep it with the backup, restore needs it.',
      )
      return lines
    }
    writeNew(secretPartial, readFileSync(secretPathOf(settings.dataDir), 'utf8'))
    publish(partial, target)
    publish(secretPartial, secretTarget)
    lines.push(
      `The secret is in ${secretTarget} (mode 0600): keep the two files together, restore needs both.`,
    )
    return lines
  } finally {
    rmSync(partial, { force: true })
    rmSync(secretPartial, { force: true })
  }
}

/**
 * Refuses a store another process has open (a running server, another CLI): leaving WAL mode needs the database to
 * itself, so it fails while anyone holds it. On success the store is closed in rollback mode, its WAL folded in.
 */
function refuseOpenStore(storePath: string): void {
  const db = new Database(storePath)
  try {
    db.exec('PRAGMA busy_timeout = 0')
    const mode = db.query<{ journal_mode: string }, []>('PRAGMA journal_mode = DELETE').get()
    if (mode?.journal_mode !== 'delete') throw new Error(`journal mode stayed ${mode?.journal_mode}`)
  } catch (error) {
    if (error instanceof CliError) throw error
    throw new CliError(
      `${storePath} is open in another process (a running server or CLI): stop it, then restore (${(error as Error).message})`,
    )
  } finally {
    db.close()
  }
}

/**
 * `restore --from FILE [--force]`: puts a snapshot made by `backup` (checked to be a Plinth store) and its secret
 * (FILE.secret.key, or PLINTH_SECRET) into DATA_DIR. Replaces an existing installation only with `--force`, and never
 * while a server or another CLI has it open. Migrations a newer version needs run at the next start.
 */
export function restore(
  settings: StandardSettings,
  env: Readonly<Record<string, string | undefined>>,
  from: string,
  force: boolean,
): string[] {
  refusePostgres(env, 'restore')
  const source = resolve(from)
  if (!existsSync(source) || !statSync(source).isFile()) throw new CliError(`--from: no file at ${source}`)
  const problem = plinthStoreProblem(source)
  if (problem) throw new CliError(`--from: ${source} cannot be restored: ${problem}`)
  const secretSource = backupSecretPathOf(source)
  const backupSecret = existsSync(secretSource) ? readFileSync(secretSource, 'utf8').trim() : null
  if (backupSecret !== null && backupSecret.length < 32)
    throw new CliError(`${secretSource} is not a Plinth secret (too short)`)
  if (backupSecret !== null && settings.secret && settings.secret !== backupSecret)
    throw new CliError(
      `PLINTH_SECRET is not the secret in ${secretSource}: the snapshot's sealed secrets and sessions need the secret it was made with; unset PLINTH_SECRET or set it to that one`,
    )
  if (backupSecret === null && !settings.secret)
    throw new CliError(
      `No ${secretSource} beside the snapshot, and PLINTH_SECRET is unset: the store needs the secret it was made with (its sealed secrets, sessions and cursors); put the backup's secret file beside it, or set PLINTH_SECRET`,
    )
  const { dataDir } = settings
  const storePath = storePathOf(dataDir)
  const existing = existsSync(storePath)
  if (existing && !force)
    throw new CliError(
      `DATA_DIR ${dataDir} already holds a Plinth installation: restore replaces it only with --force (back it up first)`,
    )
  if (existing) refuseOpenStore(storePath)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const incoming = `${storePath}.restore-${process.pid}`
  const secretPath = secretPathOf(dataDir)
  const incomingSecret = `${secretPath}.restore-${process.pid}`
  const writesSecret = backupSecret !== null && !settings.secret
  try {
    // Both made in full beside their places first, then moved in: a failure leaves the old installation whole.
    copyFileSync(source, incoming)
    chmodSync(incoming, 0o600)
    if (writesSecret) writeNew(incomingSecret, `${backupSecret}\n`)
    // The replaced store's journal files must not be applied to the restored one.
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${storePath}${suffix}`, { force: true })
    renameSync(incoming, storePath)
    if (writesSecret) renameSync(incomingSecret, secretPath)
  } finally {
    rmSync(incoming, { force: true })
    rmSync(incomingSecret, { force: true })
  }
  const lines = [
    `Restored ${source} into ${storePath}${existing ? ', replacing the installation there' : ''}`,
  ]
  lines.push(
    writesSecret
      ? `Its secret is in ${secretPath} (mode 0600).`
      : 'The secret is PLINTH_SECRET: keep setting it for this installation.',
  )
  lines.push('Start the server (npm start): migrations a newer version needs run then.')
  return lines
}
