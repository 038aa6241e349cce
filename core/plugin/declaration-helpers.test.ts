// The small declarations a plugin's contract is made of: a field of a fixed list's values, and an area's two scopes.

import { describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { areaScopes } from './area-scopes.ts'
import { enumOf } from './enum-of.ts'

describe('enumOf', () => {
  test('is a union of the values’ literals, with the options, refusing any other value', () => {
    const RecordType = enumOf(['A', 'MX'] as const, { description: 'The type.' })
    expect(RecordType).toMatchObject({
      description: 'The type.',
      anyOf: [
        { const: 'A', type: 'string' },
        { const: 'MX', type: 'string' },
      ],
    })
    expect(Value.Check(RecordType, 'MX')).toBe(true)
    expect(Value.Check(RecordType, 'TXT')).toBe(false)
    const typed: typeof RecordType.static = 'A'
    expect(typed).toBe('A')
  })
})

describe('areaScopes', () => {
  test('names read and manage for the routes, and declares both with their roles and words', () => {
    const scopes = areaScopes('dns', 'DNS zones', ['owner', 'developer'])
    expect(scopes).toMatchObject({ read: 'dns:read', manage: 'dns:manage' })
    expect(scopes.declared).toEqual([
      { name: 'dns:read', description: 'Read DNS zones', roles: ['owner', 'developer'] },
      { name: 'dns:manage', description: 'Change DNS zones', roles: ['owner', 'developer'] },
    ])
    const worded = areaScopes('cert', 'certificates', undefined, { manage: 'Upload and delete certificates' })
    expect(worded.declared).toEqual([
      { name: 'cert:read', description: 'Read certificates' },
      { name: 'cert:manage', description: 'Upload and delete certificates' },
    ])
  })
})
