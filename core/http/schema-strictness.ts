// Closes every object schema of a request (additionalProperties: false), so unknown fields are refused, not dropped.

import type { TSchema } from '@sinclair/typebox'

/**
 * A copy of `schema` in which every object without an explicit `additionalProperties` refuses unknown members.
 * TypeBox keeps its metadata in symbol keys, which object spread copies.
 */
export function closeObjects<S extends TSchema>(schema: S): S {
  const copy: Record<string | symbol, unknown> = {
    ...(schema as unknown as Record<string | symbol, unknown>),
  }
  if (copy.type === 'object' && copy.additionalProperties === undefined) copy.additionalProperties = false
  if (copy.properties && typeof copy.properties === 'object') {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties as Record<string, TSchema>).map(([key, value]) => [
        key,
        closeObjects(value),
      ]),
    )
  }
  if (copy.items && typeof copy.items === 'object') copy.items = closeObjects(copy.items as TSchema)
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as TSchema[]).map(closeObjects)
  }
  return copy as unknown as S
}
