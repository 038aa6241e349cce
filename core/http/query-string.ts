// Reading a route's query string into the value its schema validates: flat keys, repeated keys as arrays, scalars
// converted to the schema's types, defaults filled in.

import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** What the fast reader does with a property's value: whole numbers are converted, text is kept as sent. */
type FlatKind = 'integer' | 'text'

/** The kind of a property the fast reader handles exactly as TypeBox's conversion would, or null. */
function flatKind(property: unknown): FlatKind | null {
  const schema = property as { type?: unknown; anyOf?: readonly { const?: unknown }[] }
  if (schema.type === 'integer') return 'integer'
  if (schema.type === 'string') return 'text'
  // A union of string literals (`status=active`): TypeBox's conversion leaves a string as it is.
  if (schema.anyOf?.every((variant) => typeof variant.const === 'string')) return 'text'
  return null
}

/** A whole number as a query may spell it: TypeBox would also read `1.5` or `0x10` as one. */
const wholeNumber = /^-?[0-9]{1,15}$/

/**
 * Compiles the reader of a query schema. Most requests send no query and get the defaults at once; a flat schema
 * (text, union of text literals and whole numbers, as every list has) is read without TypeBox walking it, which
 * costs more than the rest of validation; any other schema goes through TypeBox's conversion and defaults.
 * A malformed whole number is passed on as an array, so validation refuses it.
 */
export function queryReader(schema: TObject): (href: string) => Record<string, unknown> {
  const defaults = Value.Default(schema, {}) as Record<string, unknown>
  const kinds = new Map<string, FlatKind>()
  let flat = true
  for (const [name, property] of Object.entries(schema.properties)) {
    const kind = flatKind(property)
    if (kind === null) flat = false
    else kinds.set(name, kind)
  }
  return (href) => {
    const mark = href.indexOf('?')
    const end = href.indexOf('#', mark)
    const search = mark < 0 ? '' : href.slice(mark + 1, end < 0 ? undefined : end)
    if (search === '') return { ...defaults }
    const params = new URLSearchParams(search)
    // No prototype: a `__proto__` key must become a field (refused as unknown), not change the object's prototype.
    const query: Record<string, unknown> = Object.create(null)
    for (const key of new Set(params.keys())) {
      const values = params.getAll(key)
      const property = schema.properties[key] as { type?: unknown } | undefined
      const value = property?.type === 'array' || values.length > 1 ? values : values[0]
      const integer = property?.type === 'integer' && typeof value === 'string'
      query[key] = integer && !wholeNumber.test(value) ? [value] : value
      if (flat && integer && wholeNumber.test(value)) query[key] = Number.parseInt(value, 10)
    }
    if (flat) return { ...defaults, ...query }
    return Value.Default(schema, Value.Convert(schema, query)) as Record<string, unknown>
  }
}
