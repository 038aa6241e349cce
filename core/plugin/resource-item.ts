// A resource's item schema with the fields every resource has (its id, when it was made and last changed), so an
// item declares only its own fields.

import { type TObject, type TProperties, type TString, Type } from '@sinclair/typebox'

/** The fields every item of {@link resourceItem} has besides its own. */
type ItemFields<F extends TProperties> = { id: TString } & F & { createdAt: TString; updatedAt: TString }

/** The id prefix of each item made by {@link resourceItem}, for what makes its ids (`itemRows`). */
const prefixes = new WeakMap<object, string>()

/** The id prefix `item` was made with by {@link resourceItem}, or undefined for another schema. */
export function prefixOf(item: TObject): string | undefined {
  return prefixes.get(item)
}

/**
 * The item schema `$id` (named so in the document): `id` (`<prefix>_…`) first, then `fields`, then `createdAt` and
 * `updatedAt` (ISO 8601 date-times). An item without them (a member, whose id is the user's) is a plain `t.Object`.
 * @example export const DnsZone = resourceItem('DnsZone', 'dnsz', { name: t.String({ description: 'The domain.' }) })
 */
export function resourceItem<F extends TProperties>(
  $id: string,
  prefix: string,
  fields: F,
): TObject<ItemFields<F>> {
  const properties = {
    id: Type.String({ description: `Identifier, \`${prefix}_…\`.` }),
    ...fields,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  }
  const item = Type.Object(properties as ItemFields<F>, { $id })
  prefixes.set(item, prefix)
  return item
}
