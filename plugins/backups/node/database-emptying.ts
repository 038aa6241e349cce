// A database emptied before a restore loads a dump into it, so that it ends up exactly the dump's: every table and
// view (MariaDB), and every table, view, sequence, routine, type and schema of its own (PostgreSQL), what extensions
// own excepted.

import { query, userSchemas } from './database-clients.ts'
import type { ProcessGroups } from './processes.ts'
import type { DatabaseLogin } from './protocol.ts'
import type { RunFailure } from './run-failure.ts'

/** Drops every table, view, sequence, routine and type of the login's database: a load then makes it the dump's. */
export async function emptyDatabase(
  login: DatabaseLogin,
  groups: ProcessGroups,
  home: string,
  databaseId: string,
  code: RunFailure['code'],
): Promise<void> {
  const doing = `Emptying ${databaseId}`
  if (login.engine === 'mariadb') {
    const rows = (
      await query(
        login,
        'SELECT TABLE_TYPE, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
        groups,
        home,
        doing,
        code,
      )
    )
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string])
    if (rows.length === 0) return
    const name = (table: string) => `\`${table.replaceAll('`', '``')}\``
    const views = rows.filter(([type]) => type === 'VIEW').map(([, table]) => name(table))
    const tables = rows.filter(([type]) => type !== 'VIEW').map(([, table]) => name(table))
    const statements = ['SET FOREIGN_KEY_CHECKS=0']
    if (views.length) statements.push(`DROP VIEW IF EXISTS ${views.join(', ')}`)
    if (tables.length) statements.push(`DROP TABLE IF EXISTS ${tables.join(', ')}`)
    await query(login, statements.join('; '), groups, home, doing, code)
    return
  }
  const owned = `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = o.oid AND d.deptype = 'e')`
  await query(
    login,
    `DO $plinth$ DECLARE r record; BEGIN
  FOR r IN SELECT n.nspname s, o.relname o, o.relkind k FROM pg_class o JOIN pg_namespace n ON n.oid = o.relnamespace
    WHERE o.relkind IN ('v','m','r','p','f','S') AND ${userSchemas} AND ${owned}
    ORDER BY CASE o.relkind WHEN 'v' THEN 0 WHEN 'm' THEN 1 WHEN 'S' THEN 3 ELSE 2 END LOOP
    EXECUTE format(CASE r.k WHEN 'v' THEN 'DROP VIEW IF EXISTS %I.%I CASCADE' WHEN 'm' THEN 'DROP MATERIALIZED VIEW IF EXISTS %I.%I CASCADE'
      WHEN 'f' THEN 'DROP FOREIGN TABLE IF EXISTS %I.%I CASCADE' WHEN 'S' THEN 'DROP SEQUENCE IF EXISTS %I.%I CASCADE'
      ELSE 'DROP TABLE IF EXISTS %I.%I CASCADE' END, r.s, r.o);
  END LOOP;
  FOR r IN SELECT n.nspname s, o.proname o, pg_get_function_identity_arguments(o.oid) a FROM pg_proc o
    JOIN pg_namespace n ON n.oid = o.pronamespace WHERE ${userSchemas} AND ${owned} LOOP
    EXECUTE format('DROP ROUTINE IF EXISTS %I.%I(%s) CASCADE', r.s, r.o, r.a);
  END LOOP;
  FOR r IN SELECT n.nspname s, o.typname o FROM pg_type o JOIN pg_namespace n ON n.oid = o.typnamespace
    WHERE o.typtype IN ('e','d','r','m') AND ${userSchemas} AND ${owned} LOOP
    EXECUTE format('DROP TYPE IF EXISTS %I.%I CASCADE', r.s, r.o);
  END LOOP;
  FOR r IN SELECT n.nspname s FROM pg_namespace n WHERE ${userSchemas} AND n.nspname <> 'public'
    AND pg_has_role(n.nspowner, 'USAGE') LOOP
    EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', r.s);
  END LOOP;
END $plinth$`,
    groups,
    home,
    doing,
    code,
  )
}
