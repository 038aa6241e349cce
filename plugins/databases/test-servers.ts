// For tests: the machine's database servers as the plugin's tests reach them, and PostgreSQL set to ask tenant
// logins for their password. The machine's PostgreSQL trusts every local connection, which would let any password
// in and prove nothing; a rule for the tenants' group makes it check SCRAM passwords as a production server does.

import { readFileSync, writeFileSync } from 'node:fs'
import postgres from 'postgres'
import type { ServerAccess } from './engines/engine.ts'
import { tenantGroupRole } from './engines/postgresql.ts'

/** MariaDB on this machine: root, no password. */
export const mariadbAdmin: ServerAccess = { host: '127.0.0.1', port: 3306, username: 'root', password: '' }
/** MariaDB's administrator as mysql2 takes it. */
export const mariadbAdminOptions = {
  host: mariadbAdmin.host,
  port: mariadbAdmin.port,
  user: mariadbAdmin.username,
  password: mariadbAdmin.password,
}
/** PostgreSQL on this machine: the `postgres` superuser, trusted. */
export const postgresqlAdmin: ServerAccess = {
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  password: '',
}

/**
 * Makes the machine's PostgreSQL ask every login in the tenants' group role for its SCRAM password over TCP: the
 * group exists, and `pg_hba.conf` has the rule before its `trust` lines (added once, then the configuration is
 * reloaded). Tests of logins as tenant users call it first; it fails loudly when it cannot.
 */
export async function requirePasswordsForTenants(): Promise<void> {
  const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(
      `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${tenantGroupRole}') THEN CREATE ROLE ${tenantGroupRole} NOLOGIN; END IF; END $$`,
    )
    const [{ hba_file: file } = { hba_file: '' }] =
      await admin`select current_setting('hba_file') as hba_file`
    const rules = [
      `host all +${tenantGroupRole} 127.0.0.1/32 scram-sha-256`,
      `host all +${tenantGroupRole} ::1/128 scram-sha-256`,
    ]
    const current = readFileSync(String(file), 'utf8')
    if (!current.includes(rules[0] ?? '')) {
      writeFileSync(
        String(file),
        `# Plinth's tests: tenant logins give their password.\n${rules.join('\n')}\n${current}`,
      )
      await admin`select pg_reload_conf()`
      // The postmaster reloads on the signal; new connections read the new rules a moment later.
      await Bun.sleep(500)
    }
  } finally {
    await admin.end()
  }
}
