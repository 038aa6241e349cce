// A value read from SQLite, as PostgreSQL keeps it in a column of a given type: where the two engines differ
// (SQLite's 64-bit integers, 0/1 for booleans, blobs) the value is converted; anything that would change its meaning
// is refused, naming where it was, instead of being guessed at.

/** How a PostgreSQL column type (`information_schema.columns.data_type`) takes a SQLite value. */
type Kind = 'integer' | 'boolean' | 'bytes' | 'decimal' | 'text'

const kinds: Readonly<Record<string, Kind>> = {
  bigint: 'integer',
  integer: 'integer',
  smallint: 'integer',
  boolean: 'boolean',
  bytea: 'bytes',
  real: 'decimal',
  'double precision': 'decimal',
  numeric: 'decimal',
}

/** A value PostgreSQL would not keep as it was in SQLite; the message names the table, column and row. */
export class UncopyableValue extends Error {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`)
    this.name = 'UncopyableValue'
  }
}

function describe(value: unknown): string {
  if (value instanceof Uint8Array) return `a blob of ${value.length} bytes`
  if (typeof value === 'string')
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`
  return `the ${typeof value} ${String(value)}`
}

/**
 * `value` (as bun:sqlite reads it with `safeIntegers`: integers as bigint, so none beyond 2^53 loses digits) for a
 * PostgreSQL column of `type`. Integers stay bigint (postgres.js sends them as int8); 0 and 1 become booleans; blobs
 * become Buffers (bytea); text stays text, JSON included (PostgreSQL parses it into a json column itself). `where`
 * names the value in the refusal (`sites.disk_mb, row 12`).
 */
export function toPostgres(value: unknown, type: string, where: string): unknown {
  if (value === null || value === undefined) return null
  const refuse = (wanted: string): never => {
    throw new UncopyableValue(where, `${describe(value)} where PostgreSQL keeps ${wanted} (${type})`)
  }
  switch (kinds[type] ?? 'text') {
    case 'integer':
      if (typeof value === 'bigint') return value
      // A REAL that SQLite kept in an integer column: only a whole number keeps its meaning.
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value)
      return refuse('an integer')
    case 'boolean':
      if (typeof value === 'boolean') return value
      if (value === 0n || value === 0) return false
      if (value === 1n || value === 1) return true
      return refuse('a boolean')
    case 'bytes':
      if (value instanceof Uint8Array) return Buffer.from(value)
      return refuse('bytes')
    case 'decimal':
      if (typeof value === 'number') return value
      // As text: PostgreSQL reads it into the column's own type, without a detour through a double.
      if (typeof value === 'bigint') return value.toString()
      return refuse('a number')
    default:
      if (typeof value === 'string') return value
      // SQLite keeps a number it was given where a column's affinity allows; PostgreSQL reads its text form.
      if (typeof value === 'bigint' || typeof value === 'number') return String(value)
      return refuse('text')
  }
}
