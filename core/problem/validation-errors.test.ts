// Field codes: each kind of schema failure maps to one stable code at a dotted location.

import { describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { validationItems } from './validation-errors.ts'

const check = TypeCompiler.Compile(
  t.Object(
    {
      tags: t.Optional(t.Array(t.String(), { minItems: 1, uniqueItems: true })),
      plan: t.Optional(
        t.Object({ code: t.String({ pattern: '^[a-z]+$' }), seats: t.Optional(t.Integer({ minimum: 1 })) }),
      ),
      contact: t.Optional(t.String({ format: 'email' })),
    },
    { additionalProperties: false },
  ),
)

const codes = (value: unknown) =>
  validationItems(check, value, 'body').map(({ location, code }) => ({ location, code }))

describe('validationItems', () => {
  test('arrays: too few and duplicate items', () => {
    expect(codes({ tags: [] })).toEqual([{ location: 'body.tags', code: 'too_few_items' }])
    expect(codes({ tags: ['a', 'a'] })).toEqual([{ location: 'body.tags', code: 'duplicate_items' }])
  })

  test('nested fields get nested locations', () => {
    expect(codes({ plan: { code: 'X1', seats: 0 } })).toEqual([
      { location: 'body.plan.code', code: 'invalid_format' },
      { location: 'body.plan.seats', code: 'out_of_range' },
    ])
  })

  test('a whole number where a fraction is sent is invalid_type', () => {
    expect(codes({ plan: { code: 'x', seats: 1.5 } })).toEqual([
      { location: 'body.plan.seats', code: 'invalid_type' },
    ])
  })

  test('a format failure names the format', () => {
    expect(validationItems(check, { contact: 'nope' }, 'body')).toEqual([
      { location: 'body.contact', code: 'invalid_format', message: 'must be a valid email' },
    ])
  })

  test('a member that may be null is refused for what its value breaks, with the bound', () => {
    const nullable = TypeCompiler.Compile(
      t.Object({
        memoryMB: t.Optional(t.Union([t.Integer({ minimum: 16, maximum: 100 }), t.Null()])),
        kind: t.Optional(t.Union([t.Union([t.Literal('a'), t.Literal('b')]), t.Null()])),
      }),
    )
    expect(validationItems(nullable, { memoryMB: 8 }, 'body')).toEqual([
      { location: 'body.memoryMB', code: 'out_of_range', message: 'must be at least 16' },
    ])
    expect(validationItems(nullable, { memoryMB: 101 }, 'body')).toEqual([
      { location: 'body.memoryMB', code: 'out_of_range', message: 'must be at most 100' },
    ])
    expect(validationItems(nullable, { memoryMB: 1.5 }, 'body')).toEqual([
      { location: 'body.memoryMB', code: 'invalid_type', message: 'must be a whole number' },
    ])
    expect(validationItems(nullable, { kind: 'c' }, 'body')).toEqual([
      { location: 'body.kind', code: 'invalid_value', message: 'must be one of "a", "b"' },
    ])
    expect(validationItems(nullable, { memoryMB: null, kind: null }, 'body')).toEqual([])
  })

  test('a hostile body with many faults gets a bounded answer', () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, i]))
    expect(validationItems(check, many, 'body').length).toBeLessThanOrEqual(50)
  })
})
