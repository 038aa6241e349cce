// Reads and writes of the brands table; the only file that knows its columns.

import { type Db, sql } from '../../core/index.ts'
import type { Brand } from './contract.ts'
import type { BrandsTable, BrandsTables } from './migrations.ts'

/** The API form of a row. */
export function toBrand(row: BrandsTable): Brand {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.is_default === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** All brands as a query, for lists: keyed by `id`. */
export function brandsQuery(db: Db) {
  return db.withTables<BrandsTables>().selectFrom('brands').selectAll()
}

/** The brand with this id, or null. */
export async function findBrand(db: Db, id: string): Promise<Brand | null> {
  const row = await brandsQuery(db).where('id', '=', id).executeTakeFirst()
  return row ? toBrand(row) : null
}

/** The default brand's id. */
export async function defaultBrandId(db: Db): Promise<string> {
  const row = await brandsQuery(db).where('is_default', '=', 1).executeTakeFirstOrThrow()
  return row.id
}

/** Whether another brand has this name. */
export async function nameTaken(db: Db, name: string, exceptId: string | null = null): Promise<boolean> {
  // Case-insensitive: "Acme Hosting" and "acme hosting" would confuse everyone who picks a brand from a list.
  let query = brandsQuery(db).where(sql<string>`lower(name)`, '=', name.toLowerCase())
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Inserts a brand row. */
export async function insertBrand(db: Db, row: BrandsTable): Promise<void> {
  await db.withTables<BrandsTables>().insertInto('brands').values(row).execute()
}

/** Renames a brand. */
export async function renameBrand(db: Db, id: string, name: string, updatedAt: string): Promise<void> {
  await db
    .withTables<BrandsTables>()
    .updateTable('brands')
    .set({ name, updated_at: updatedAt })
    .where('id', '=', id)
    .execute()
}
