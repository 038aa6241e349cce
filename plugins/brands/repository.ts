// Reads and writes of the brands tables; the only file that knows their columns.

import { type Db, sql, visibleTable } from '../../core/index.ts'
import { type Brand, type Branding, type BrandTheme, defaultTheme } from './contract.ts'
import type { BrandsTable, BrandsTables } from './migrations.ts'

/** The API form of a row. */
export function toBrand(row: BrandsTable): Brand {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.is_default === 1,
    theme: themeOf(row),
    hostnames: JSON.parse(row.hostnames) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function themeOf(row: BrandsTable): BrandTheme {
  return { logo: row.logo, primaryColor: row.primary_color, accentColor: row.accent_color }
}

/** A new brand's row: the default theme, no host names. */
export function newBrandRow(id: string, name: string, now: string): BrandsTable {
  return {
    id,
    name,
    is_default: 0,
    logo: defaultTheme.logo,
    primary_color: defaultTheme.primaryColor,
    accent_color: defaultTheme.accentColor,
    hostnames: '[]',
    created_at: now,
    updated_at: now,
  }
}

/** Brands as staff views reach them: every brand for platform staff, their own for a brand's staff. */
export const brands = visibleTable((db: Db) => db.withTables<BrandsTables>(), 'brands', { brandColumn: 'id' })

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

/**
 * What the sign-in page shows: the brand that has `hostname`, else the brand `brandId`, else the default brand.
 * Either may be null (not given, or no host name a brand could have).
 */
export async function brandingFor(
  db: Db,
  hostname: string | null,
  brandId: string | null,
): Promise<Branding> {
  const trx = db.withTables<BrandsTables>()
  const byHost =
    hostname === null
      ? undefined
      : await trx
          .selectFrom('brand_hostnames')
          .innerJoin('brands', 'brands.id', 'brand_hostnames.brand_id')
          .selectAll('brands')
          .where('brand_hostnames.hostname', '=', hostname)
          .executeTakeFirst()
  const row =
    byHost ??
    (brandId === null ? undefined : await brandsQuery(db).where('id', '=', brandId).executeTakeFirst()) ??
    (await brandsQuery(db).where('is_default', '=', 1).executeTakeFirstOrThrow())
  return { brandId: row.id, name: row.name, theme: themeOf(row) }
}

/** Whether another brand has this name. */
export async function nameTaken(db: Db, name: string, exceptId: string | null = null): Promise<boolean> {
  // Case-insensitive: "Acme Hosting" and "acme hosting" would confuse everyone who picks a brand from a list.
  let query = brandsQuery(db).where(sql<string>`lower(name)`, '=', name.toLowerCase())
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Which of these host names some brand has. */
export async function brandsHostnames(db: Db, hostnames: readonly string[]): Promise<string[]> {
  if (hostnames.length === 0) return []
  const rows = await db
    .withTables<BrandsTables>()
    .selectFrom('brand_hostnames')
    .select('hostname')
    .where('hostname', 'in', [...hostnames])
    .execute()
  return rows.map((row) => row.hostname)
}

/** Which of these host names brands other than `brandId` have. */
export async function hostnamesTaken(
  db: Db,
  hostnames: readonly string[],
  brandId: string,
): Promise<Set<string>> {
  if (hostnames.length === 0) return new Set()
  const rows = await db
    .withTables<BrandsTables>()
    .selectFrom('brand_hostnames')
    .select('hostname')
    .where('hostname', 'in', [...hostnames])
    .where('brand_id', '!=', brandId)
    .execute()
  return new Set(rows.map((row) => row.hostname))
}

/** Inserts a brand row. */
export async function insertBrand(db: Db, row: BrandsTable): Promise<void> {
  await db.withTables<BrandsTables>().insertInto('brands').values(row).execute()
}

/** A change of a brand: the fields to set, the others left as they are. */
export interface BrandChange {
  readonly name?: string
  readonly theme?: Partial<BrandTheme>
  /** Canonical and without repeats; replaces the brand's list. */
  readonly hostnames?: readonly string[]
}

/** Applies `change` to the brand `id`; call it in a transaction, after checking names and host names are free. */
export async function updateBrand(db: Db, id: string, change: BrandChange, updatedAt: string): Promise<void> {
  const tables = db.withTables<BrandsTables>()
  const { theme, hostnames } = change
  await tables
    .updateTable('brands')
    .set({
      updated_at: updatedAt,
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(theme?.logo === undefined ? {} : { logo: theme.logo }),
      ...(theme?.primaryColor === undefined ? {} : { primary_color: theme.primaryColor }),
      ...(theme?.accentColor === undefined ? {} : { accent_color: theme.accentColor }),
      ...(hostnames === undefined ? {} : { hostnames: JSON.stringify(hostnames) }),
    })
    .where('id', '=', id)
    .execute()
  if (hostnames === undefined) return
  await tables.deleteFrom('brand_hostnames').where('brand_id', '=', id).execute()
  if (hostnames.length > 0)
    await tables
      .insertInto('brand_hostnames')
      .values(hostnames.map((hostname) => ({ hostname, brand_id: id })))
      .execute()
}

/** Deletes the brand `id` and its host names. */
export async function deleteBrand(db: Db, id: string): Promise<void> {
  const tables = db.withTables<BrandsTables>()
  await tables.deleteFrom('brand_hostnames').where('brand_id', '=', id).execute()
  await tables.deleteFrom('brands').where('id', '=', id).execute()
}
