// An item made by resourceItem is the plain object it stands for: its id first, its own fields, its times, named.

import { expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { resourceItem } from './resource-item.ts'

test('adds the id, createdAt and updatedAt around its own fields, and names the schema', () => {
  const Crate = resourceItem('Crate', 'crt', { label: t.String(), weight: t.Optional(t.Integer()) })
  expect(Crate.$id).toBe('Crate')
  expect(Object.keys(Crate.properties)).toEqual(['id', 'label', 'weight', 'createdAt', 'updatedAt'])
  expect(Crate.properties.id.description).toBe('Identifier, `crt_…`.')
  expect(Crate.required as string[] | undefined).toEqual(['id', 'label', 'createdAt', 'updatedAt'])
  expect([Crate.properties.createdAt.format, Crate.properties.updatedAt.format]).toEqual([
    'date-time',
    'date-time',
  ])
})
