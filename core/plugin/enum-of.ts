// A field holding one of a fixed list of values (a record's type, a site's status), declared from the list the
// code keeps anyway, so the schema and the type follow the list.

import { type SchemaOptions, type TLiteral, type TUnion, Type } from '@sinclair/typebox'

/**
 * The schema of one of `values` (a union of their literals, so the document lists them and a request holding
 * another is refused at its field); its static type is the values' union.
 * @example type: enumOf(recordTypes, { description: 'The record’s type.' })
 */
export function enumOf<const V extends string | number>(
  values: readonly V[],
  options: SchemaOptions = {},
): TUnion<TLiteral<V>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as never
}
