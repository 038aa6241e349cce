// Text declared `nonBlankText` reaches handlers trimmed: the surrounding spaces a form adds are never stored.

import type { TSchema } from '@sinclair/typebox'
import { nonBlankPattern } from '../problem/field-checks.ts'

type Walked = {
  type?: unknown
  pattern?: unknown
  properties?: Record<string, TSchema>
  items?: TSchema
  anyOf?: TSchema[]
}

/** `value` (already valid against `schema`) with every `nonBlankText` string trimmed, in place. */
export function trimText(schema: TSchema, value: unknown): unknown {
  const walked = schema as Walked
  if (typeof value === 'string') return walked.pattern === nonBlankPattern ? value.trim() : value
  if (Array.isArray(value) && walked.items)
    return value.map((item) => trimText(walked.items as TSchema, item))
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    for (const [key, property] of Object.entries(walked.properties ?? {}))
      if (key in record) record[key] = trimText(property, record[key])
    return record
  }
  // A union (`t.Optional(t.Union([text, t.Null()]))`): trimmed by whichever member is text.
  const text = walked.anyOf?.find((member) => (member as Walked).pattern === nonBlankPattern)
  return text && typeof value === 'string' ? value.trim() : value
}
