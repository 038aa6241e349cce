// A plugin's table made from its item schema: a column per field, named as the API names it, typed as both engines
// keep it, so a table whose rows are its items is declared once (by the schema) rather than column by column.

import { type TObject, type TSchema, TypeGuard } from '@sinclair/typebox'
import type { ColumnDataType, CreateTableBuilder, Kysely } from 'kysely'
import type { Migration } from './migrations.ts'

/** The column type both engines keep a field's value in. */
function columnType(schema: TSchema): ColumnDataType {
  if (TypeGuard.IsInteger(schema) || TypeGuard.IsBoolean(schema)) return 'integer'
  if (TypeGuard.IsNumber(schema)) return 'real'
  if (TypeGuard.IsUnion(schema)) {
    const types = new Set(schema.anyOf.filter((member) => !TypeGuard.IsNull(member)).map(columnType))
    if (types.size === 1) return [...types][0] as ColumnDataType
  }
  // Strings, and what is kept as JSON text (arrays, objects).
  return 'text'
}

/** Whether a field may be left out or null: its column may hold null. */
function nullable(item: TObject, name: string, schema: TSchema): boolean {
  if (!(item.required ?? []).includes(name)) return true
  return TypeGuard.IsUnion(schema) && schema.anyOf.some((member) => TypeGuard.IsNull(member))
}

/**
 * `createTable(table)` with a column for each field of `item`, named as the field: `id` the primary key, integers
 * and booleans (0 or 1) `integer`, numbers `real`, strings and everything else `text` (arrays and objects as JSON,
 * times as ISO 8601); a field that is optional or nullable may hold null, the others are `not null`. Fields in
 * `except` are left out (what the item computes rather than stores). Add what a schema cannot say (a unique
 * column, a default) to the builder, then `execute()` it; indexes with `db.schema.createIndex`.
 * @example migrations: [{ id: '0001_dns', up: (db) => createTableOf(db, 'dns_zones', DnsZone).execute() }]
 */
export function createTableOf(
  // biome-ignore lint/suspicious/noExplicitAny: a migration's store, whatever tables it holds
  db: Kysely<any>,
  table: string,
  item: TObject,
  except: readonly string[] = [],
): CreateTableBuilder<string, never> {
  let create = db.schema.createTable(table) as CreateTableBuilder<string, never>
  for (const [name, schema] of Object.entries(item.properties)) {
    if (except.includes(name)) continue
    create = create.addColumn(name, columnType(schema), (column) =>
      name === 'id' ? column.primaryKey() : nullable(item, name, schema) ? column : column.notNull(),
    )
  }
  return create
}

/** A table of {@link tablesMigration}: its item, and the columns it is read or kept unique by. */
export interface ItemTable {
  readonly item: TObject
  /** Fields the table leaves out (see {@link createTableOf}). */
  readonly except?: readonly string[]
  /** Column sets no two rows share (`[['name']]`): each a unique index `<table>_<columns>_key`. */
  readonly unique?: readonly (readonly string[])[]
  /** Column sets the plugin reads rows by (`[['zoneId', 'name']]`): each an index `<table>_<columns>_idx`. */
  readonly indexes?: readonly (readonly string[])[]
}

/**
 * A migration making tables from items ({@link createTableOf}), with their unique column sets and indexes: the
 * first migration of a plugin whose rows are its items, declared rather than built.
 * @example migrations: [tablesMigration('0001_dns', { dns_zones: { item: DnsZone, unique: [['name']] } })]
 */
export function tablesMigration(id: string, tables: Readonly<Record<string, ItemTable>>): Migration {
  return {
    id,
    async up(db) {
      for (const [table, { item, except, unique = [], indexes = [] }] of Object.entries(tables)) {
        await createTableOf(db, table, item, except).execute()
        for (const columns of unique) {
          const index = db.schema.createIndex(`${table}_${columns.join('_')}_key`).unique()
          await index
            .on(table)
            .columns([...columns])
            .execute()
        }
        for (const columns of indexes)
          await db.schema
            .createIndex(`${table}_${columns.join('_')}_idx`)
            .on(table)
            .columns([...columns])
            .execute()
      }
    },
  }
}
