// Where an installation keeps its store: the embedded SQLite file in DATA_DIR, or the PostgreSQL database of
// DATABASE_URL. The secret stays PLINTH_SECRET or DATA_DIR/secret.key either way.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { openPostgresStore, openSqliteStore, type Store } from '../core/host.ts'
import { redactedUrl, SettingsError, type StandardSettings } from './settings.ts'

/** The store of an installation, before it is opened. */
export interface InstallationStore {
  /** Where it is, for messages: `DATA_DIR /srv/plinth/data` or `DATABASE_URL postgres://…` (no password). */
  readonly where: string
  /** Whether an installation is there (the store holds the kernel's migrations). */
  exists(): Promise<boolean>
  /** Opens the store (on PostgreSQL, making DATABASE_SCHEMA first if it is missing). */
  open(): Promise<Store>
}

/** The store file of an installation in `dataDir`. */
export function storePathOf(dataDir: string): string {
  return join(dataDir, 'plinth.sqlite')
}

/** The installation's store as `settings` place it. */
export function installationStoreOf(
  settings: Pick<StandardSettings, 'dataDir' | 'databaseUrl' | 'databasePoolSize' | 'databaseSchema'>,
): InstallationStore {
  const { databaseUrl } = settings
  if (databaseUrl === null) {
    const path = storePathOf(settings.dataDir)
    return {
      where: `DATA_DIR ${settings.dataDir}`,
      exists: async () => existsSync(path),
      open: async () => openSqliteStore({ path }),
    }
  }
  const schema = settings.databaseSchema ?? undefined
  const openOn = (poolSize: number | undefined) =>
    openPostgresStore({ url: databaseUrl, ...(poolSize ? { poolSize } : {}), ...(schema ? { schema } : {}) })
  return {
    where: `DATABASE_URL ${redactedUrl(databaseUrl)}${schema ? ` (schema ${schema})` : ''}`,
    exists: () => holdsInstallation(openOn(1), databaseUrl),
    async open() {
      if (schema) {
        const store = openOn(1)
        try {
          await answeredInTime(
            sql`create schema if not exists ${sql.id(schema)}`.execute(store.db),
            databaseUrl,
          )
        } catch (error) {
          if (error instanceof SettingsError) throw error
          throw new SettingsError([
            `DATABASE_URL: cannot use ${redactedUrl(databaseUrl)}: ${(error as Error).message}`,
          ])
        } finally {
          await store.close()
        }
      }
      return openOn(settings.databasePoolSize)
    },
  }
}

/**
 * Whether the PostgreSQL database of `url` holds an installation (the kernel's migrations table in its schema).
 * An unreachable server is a setting problem, said with the server's own words.
 */
async function holdsInstallation(store: Store, url: string): Promise<boolean> {
  try {
    return (await answeredInTime(store.tables(), url)).includes('plinth_migrations')
  } catch (error) {
    if (error instanceof SettingsError) throw error
    throw new SettingsError([`DATABASE_URL: cannot use ${redactedUrl(url)}: ${(error as Error).message}`])
  } finally {
    await store.close()
  }
}

/** How long the first answer of the database may take: a server that accepts and never speaks must not hang start-up. */
const firstAnswerSeconds = 15

/** `work`, or a settings error naming `DATABASE_URL` when nothing answered in {@link firstAnswerSeconds}. */
async function answeredInTime<T>(work: Promise<T>, url: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SettingsError([
            `DATABASE_URL: no PostgreSQL answered at ${redactedUrl(url)} within ${firstAnswerSeconds} s (is it a PostgreSQL server?)`,
          ]),
        ),
      firstAnswerSeconds * 1000,
    )
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}
