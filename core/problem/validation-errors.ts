// Turns TypeBox's value errors into the `errors[]` items of a 422, with stable field codes.

import type { TSchema } from '@sinclair/typebox'
import type { TypeCheck } from '@sinclair/typebox/compiler'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors'
import { nonBlankPattern } from './field-checks.ts'
import { formatRefusal } from './formats.ts'
import type { FieldCode } from './kernel-problems.ts'
import type { ProblemItem } from './problem.ts'

function fieldCodeOf(error: ValueError): FieldCode {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required'
    case ValueErrorType.ObjectAdditionalProperties:
      return 'unknown_field'
    case ValueErrorType.StringMinLength:
      return 'too_short'
    case ValueErrorType.StringMaxLength:
      return 'too_long'
    case ValueErrorType.StringPattern:
      return (error.schema as { pattern?: string }).pattern === nonBlankPattern
        ? 'too_short'
        : 'invalid_format'
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown:
      return 'invalid_format'
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.NumberMultipleOf:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.IntegerMultipleOf:
      return 'out_of_range'
    case ValueErrorType.ArrayMinItems:
      return 'too_few_items'
    case ValueErrorType.ArrayMaxItems:
      return 'too_many_items'
    case ValueErrorType.ArrayUniqueItems:
      return 'duplicate_items'
    case ValueErrorType.Literal:
    case ValueErrorType.Union:
      return 'invalid_value'
    default:
      return 'invalid_type'
  }
}

function messageOf(code: FieldCode, error: ValueError): string {
  const schema = error.schema as Record<string, unknown>
  switch (code) {
    case 'required':
      return 'is required'
    case 'unknown_field':
      return 'is not a known field'
    case 'too_short':
      return error.type === ValueErrorType.StringPattern
        ? 'must not be blank'
        : `must be at least ${schema.minLength} characters`
    case 'too_long':
      return `must be at most ${schema.maxLength} characters`
    case 'too_few_items':
      return `must have at least ${schema.minItems} items`
    case 'too_many_items':
      return `must have at most ${schema.maxItems} items`
    case 'invalid_value': {
      const accepted = acceptedValues(error.schema)
      return accepted ? `must be one of ${accepted.join(', ')}` : 'is not an accepted value'
    }
    case 'invalid_type':
      return `must be ${expectedType(error.schema)}`
    case 'out_of_range':
      return rangeMessage(error)
    case 'invalid_format':
      return typeof schema.format === 'string'
        ? `must be a valid ${schema.format}`
        : 'does not have the required format'
    default:
      return error.message.replace(/^Expected/, 'must be')
  }
}

function rangeMessage(error: ValueError): string {
  const schema = error.schema as Record<string, unknown>
  switch (error.type) {
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${schema.minimum}`
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${schema.maximum}`
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be greater than ${schema.exclusiveMinimum}`
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be less than ${schema.exclusiveMaximum}`
    default:
      return `must be a multiple of ${schema.multipleOf}`
  }
}

function acceptedValues(schema: TSchema): string[] | undefined {
  const options = (schema as { anyOf?: TSchema[] }).anyOf ?? [schema]
  const values = options.map((option) => (option as { const?: unknown }).const)
  return values.every((value) => value !== undefined)
    ? values.map((value) => JSON.stringify(value))
    : undefined
}

function expectedType(schema: TSchema): string {
  const type = (schema as { type?: unknown }).type
  if (type === 'integer') return 'a whole number'
  if (type === 'object') return 'an object'
  if (type === 'array') return 'an array'
  if (typeof type === 'string') return `a ${type}`
  return 'of the documented type'
}

/** `/limits/diskMB` under `body` → `body.limits.diskMB`; array indices stay numeric (`body.events.0`). */
function locationOf(prefix: string, error: ValueError): string {
  const segments = error.path.split('/').slice(1)
  return [prefix, ...segments].join('.')
}

/**
 * The failure to report of a member that may be null (`t.Union([X, t.Null()])`) given something else: `X`'s
 * (`must be at least 16`), which says what to send, rather than the union's (`is not an accepted value`).
 */
function reasonOf(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union || error.value === null) return error
  const members = (error.schema as { anyOf?: readonly { type?: unknown }[] }).anyOf ?? []
  const others = members.flatMap((member, index) => (member.type === 'null' ? [] : [index]))
  if (members.length !== 2 || others.length !== 1) return error
  const [index] = others as [number]
  return error.errors[index]?.First() ?? error
}

/**
 * Every failure of `value` against a compiled schema, one item per location (the first reason wins: a
 * missing field is `required`, not also `invalid_type`). Each unknown property is an item of its own.
 */
export function validationItems(check: TypeCheck<TSchema>, value: unknown, prefix: string): ProblemItem[] {
  const items: ProblemItem[] = []
  const seen = new Set<string>()
  for (const failure of check.Errors(value)) {
    const error = reasonOf(failure)
    // TypeBox reports an unknown property at its own path, so every failure's location is its path.
    const location = locationOf(prefix, error)
    if (seen.has(location)) continue
    seen.add(location)
    const declared =
      error.type === ValueErrorType.StringFormat ? formatRefusal(error.schema.format) : undefined
    if (declared) {
      items.push({ location, ...declared })
    } else {
      const code = fieldCodeOf(error)
      items.push({ location, message: messageOf(code, error), code })
    }
    if (items.length >= 50) break // a hostile body must not make a huge answer
  }
  return items
}
