// A plugin's table whose rows are the items of a `resourceItem` (its columns named as the fields, as
// `tablesMigration` makes it): read as views reach it, written with the fields every item has filled in by the
// kernel (a new id of the item's prefix, when it was made and last changed).

import type { Static, TObject } from '@sinclair/typebox'
import { newId, nowIso } from '../ids/ids.ts'
import type { Db } from '../store/store.ts'
import { type TableTenancy, type VisibleTable, visibleTable } from '../tenancy/visible-table.ts'
import { type Recorded, unchanged } from './change.ts'
import { prefixOf } from './resource-item.ts'

/** What a new row gives: the item's own fields, without those the kernel fills in. */
export type NewItemRow<Row> = Omit<Row, 'id' | 'createdAt' | 'updatedAt'>

/** A table of items as views reach it and as the plugin writes it; see {@link itemRows}. */
export interface ItemRows<Row extends { id: string }> extends VisibleTable<Record<string, Row>, string> {
  /** Inserts a new item: its id (`<prefix>_…`), `createdAt` and `updatedAt` made here; answers the whole row. */
  insert(db: Db, fields: NewItemRow<Row>): Promise<Row>
  /**
   * Writes `changes` into `row` with a new `updatedAt`; answers the row as it now is, or `unchanged(row)` when
   * the changes hold what the row holds (nothing written), which a change's handler returns as it is (no audit
   * entry, no event).
   */
  update(db: Db, row: Row, changes: Partial<NewItemRow<Row>>): Promise<Row | Recorded>
}

/**
 * Declares the table `table` whose rows are `item`s (made by `resourceItem`, whose prefix its ids take), reached
 * by views as `tenancy` says (see `visibleTable`).
 * @example const zones = itemRows('dns_zones', DnsZone, { customerColumn: 'customerId' })
 * @example return zones.insert(trx, { customerId, name, serial: 1 })
 */
export function itemRows<Item extends TObject>(
  table: string,
  item: Item,
  tenancy: TableTenancy,
): ItemRows<Static<Item> & { id: string }> {
  type Row = Static<Item> & { id: string }
  const prefix = prefixOf(item)
  if (!prefix) throw new Error(`itemRows(${table}): its item is not a resourceItem (no id prefix)`)
  const tables = (db: Db) => db.withTables<Record<string, Row>>()
  // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type a table chosen by the caller
  const writer = (db: Db) => tables(db) as any
  return {
    ...visibleTable(tables, table, tenancy),
    async insert(db, fields) {
      const at = nowIso()
      const row = { id: newId(prefix), ...fields, createdAt: at, updatedAt: at } as Row
      await writer(db).insertInto(table).values(row).execute()
      return row
    },
    async update(db, row, changes) {
      const same = Object.entries(changes).every(([field, value]) => row[field as keyof Row] === value)
      if (same) return unchanged(row)
      const changed = { ...changes, updatedAt: nowIso() }
      await writer(db).updateTable(table).set(changed).where('id', '=', row.id).execute()
      return { ...row, ...changed }
    },
  }
}
