// `store copy --to postgres://…`: moves an installation from the embedded SQLite store in DATA_DIR into an empty
// PostgreSQL database. The target's tables are made by the same migrations the instances run, then every table's
// rows are copied as they are (sealed secrets stay sealed) from one consistent snapshot, and counted on both sides.

import { openPostgresStore, type Panel, type Store } from '../../core/host.ts'
import { installationPlugins } from '../plinth-config.ts'
import { redactedUrl, SettingsError, type StandardSettings } from '../settings.ts'
import { installationProblems, openStandardPanel, secretPathOf, storePathOf } from '../standard-panel.ts'
import { startupProblems } from '../startup-failure.ts'
import { CliError, StartupFailure } from './cli-error.ts'
import { copySnapshot, type TableCount } from './copy-snapshot.ts'
import { restoreTarget, type TargetState, targetState } from './copy-target.ts'

/** Where `store copy` copies to. */
export interface CopyTarget {
  /** `postgres://user:password@host:5432/database`. */
  readonly url: string
  /** The schema to fill, made when missing (as `DATABASE_SCHEMA` is); null for the connection's own (`public`). */
  readonly schema: string | null
}

/** Reads `--to` and `--schema`; a missing or malformed one is a usage error (exit 2). */
export function copyTargetOf(to: string | undefined, schema: string | undefined): CopyTarget {
  const example = 'postgres://user:password@host:5432/database'
  if (!to)
    throw new CliError(`plinth: --to is required: the PostgreSQL database to copy into (${example})`, 2)
  let url: URL
  try {
    url = new URL(to)
  } catch {
    throw new CliError(`plinth: --to must be a URL like ${example}`, 2)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new CliError(`plinth: --to must start with postgres:// or postgresql://, not ${url.protocol}//`, 2)
  if (url.pathname.length <= 1) throw new CliError(`plinth: --to names no database: ${redactedUrl(to)}`, 2)
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new CliError(
      `plinth: --schema must be a plain PostgreSQL name (lower case letters, digits, _; 63 at most), not "${schema}"`,
      2,
    )
  return { url: to, schema: schema ?? null }
}

/**
 * Copies the installation in `settings.dataDir` into `target`, which must hold no table. Answers the report: a line
 * per table with its rows on both sides, the total, and which secret the instances need.
 */
export async function copyStore(settings: StandardSettings, target: CopyTarget): Promise<string[]> {
  const started = performance.now()
  // The source is the SQLite store in DATA_DIR whatever DATABASE_URL says: that is what is being moved.
  const source: StandardSettings = { ...settings, databaseUrl: null, databaseSchema: null }
  const missing = await installationProblems(source)
  if (missing.length > 0) throw new StartupFailure(new SettingsError(missing))
  const where = `${redactedUrl(target.url)}${target.schema ? ` (schema ${target.schema})` : ''}`
  const openTarget = () =>
    openPostgresStore({ url: target.url, poolSize: 1, ...(target.schema ? { schema: target.schema } : {}) })

  const before = await inspectTarget(openTarget(), where, target)
  // Opened once the way every command opens it: pending migrations applied, the secret checked, PLINTH_CONFIG read.
  try {
    const panel = await openStandardPanel(source, await installationPlugins(source), { existingOnly: true })
    await panel.close()
  } catch (error) {
    throw new StartupFailure(error)
  }

  /** Puts the target back as it was found; says how that went, for the message of the failure that needed it. */
  const putBack = async (): Promise<string> => {
    const store = openTarget()
    try {
      await restoreTarget(store.db, before, before.schema === null ? target.schema : null)
      return 'the target was put back as it was found'
    } catch (error) {
      // The first failure stays the news; this one says what is left to clean by hand.
      return `putting the target back failed too (${(error as Error).message}): drop what the copy made before running it again`
    } finally {
      await store.close()
    }
  }
  let panel: Panel
  try {
    // Made as an instance on DATABASE_URL makes it: the same plugins, migrations and secret.
    const onTarget = { ...settings, databaseUrl: target.url, databaseSchema: target.schema }
    panel = await openStandardPanel(onTarget, await installationPlugins(onTarget))
  } catch (error) {
    throw new CliError(
      `plinth: the migrations failed on ${where}: ${startupProblems(error).join('; ')}; ${await putBack()}`,
    )
  }
  let counts: TableCount[]
  try {
    counts = await copySnapshot(storePathOf(settings.dataDir), panel.store)
  } catch (error) {
    await panel.close()
    throw new CliError(
      `plinth: the copy failed: ${(error as Error).message}; nothing was copied, ${await putBack()}`,
    )
  }
  await panel.close()
  return report(settings, target, where, counts, performance.now() - started)
}

/** The target's state before anything is written; refuses one that holds a table, or cannot be reached. */
async function inspectTarget(store: Store, where: string, target: CopyTarget): Promise<TargetState> {
  let state: TargetState
  try {
    state = await targetState(store)
  } catch (error) {
    throw new CliError(`plinth: cannot use the target ${where}: ${(error as Error).message}`)
  } finally {
    await store.close()
  }
  if (state.schema === null && target.schema === null)
    throw new CliError(
      `plinth: the target ${where} has no schema to make tables in (its search_path names none that exists): name one with --schema`,
      2,
    )
  if (state.tables.length > 0) {
    const shown = state.tables.slice(0, 10).join(', ') + (state.tables.length > 10 ? ', …' : '')
    throw new CliError(
      `plinth: the target ${where} is not empty: schema ${state.schema} holds ${state.tables.length} table${state.tables.length === 1 ? '' : 's'} (${shown}); store copy fills only an empty database or schema, and wrote nothing`,
    )
  }
  return state
}

/** The lines `store copy` prints: a table of counts, the total, and what to do next. */
function report(
  settings: StandardSettings,
  target: CopyTarget,
  where: string,
  counts: readonly TableCount[],
  elapsedMs: number,
): string[] {
  const width = Math.max('TABLE'.length, ...counts.map((count) => count.name.length))
  const cell = (value: string, size: number) => value.padStart(size)
  const line = (name: string, sqlite: string, postgres: string, note = '') =>
    `${name.padEnd(width)}  ${cell(sqlite, 8)}  ${cell(postgres, 10)}${note}`.trimEnd()
  const copied = counts.filter((count) => count.sqlite !== null)
  const rows = copied.reduce((sum, count) => sum + (count.sqlite ?? 0), 0)
  const secret = settings.secret
    ? 'The secret is PLINTH_SECRET: set the same PLINTH_SECRET on every instance that uses this database.'
    : `The secret is in ${secretPathOf(settings.dataDir)} (not in the database): give every instance that uses this database the same one (copy the file into its DATA_DIR, or set PLINTH_SECRET to its contents).`
  return [
    `From ${storePathOf(settings.dataDir)} (read in one transaction: a consistent snapshot) into ${where}:`,
    line('TABLE', 'SQLITE', 'POSTGRESQL'),
    ...counts.map((count) =>
      count.sqlite === null
        ? line(
            count.name,
            '-',
            String(count.postgres),
            "  PostgreSQL's own (its migrations made it), not copied",
          )
        : line(count.name, String(count.sqlite), String(count.postgres)),
    ),
    `Copied ${copied.length} tables, ${rows} rows in ${(elapsedMs / 1000).toFixed(2)} s; every table has as many rows in PostgreSQL as in the snapshot.`,
    secret,
    `Next: stop the server on DATA_DIR (what it writes after the snapshot is not copied), then start the instances with DATABASE_URL=${redactedUrl(target.url)}${target.schema ? ` DATABASE_SCHEMA=${target.schema}` : ''} and the same PLINTH_CONFIG.`,
  ]
}
