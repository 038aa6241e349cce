// Start-up refusals of createPanel: every way two plugins can collide, or a plugin can be incomplete, names both.

import { describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { createPanel } from '../panel/create-panel.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { definePlugin, type PluginDefinition } from './define-plugin.ts'
import { defineExtensionPoint } from './extension-point.ts'
import { PluginResolutionError } from './resolve-plugins.ts'
import { defineRoute, type RouteDefinition } from './route.ts'

const route = (overrides: Partial<RouteDefinition> = {}): RouteDefinition =>
  defineRoute({
    method: 'GET',
    path: '/things',
    operationId: 'listThings',
    summary: 'List things',
    scope: 'thing:read',
    responses: { 200: { description: 'ok', schema: t.Object({}) } },
    handler: () => ({}),
    ...overrides,
  } as Parameters<typeof defineRoute>[0])

const plugin = (overrides: Partial<PluginDefinition> = {}): PluginDefinition =>
  definePlugin({ name: 'things', version: '1.0.0', description: 'Things.', ...overrides })

async function build(plugins: PluginDefinition[], overrides: PluginDefinition[] = []) {
  return createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins,
    overrides,
    secret: 'a-secret-that-is-long-enough-for-tests',
  })
}

async function refusal(plugins: PluginDefinition[], overrides: PluginDefinition[] = []): Promise<string> {
  try {
    const panel = await build(plugins, overrides)
    await panel.close()
  } catch (error) {
    expect(error).toBeInstanceOf(PluginResolutionError)
    return (error as Error).message
  }
  throw new Error('the panel started although it should not have')
}

describe('createPanel refuses to start', () => {
  test('when two plugins share a name, even with different versions', async () => {
    const message = await refusal([plugin(), plugin({ version: '2.0.0' })])
    expect(message).toContain('"things"')
    expect(message).toContain('1.0.0')
    expect(message).toContain('2.0.0')
  })

  test('when a required plugin is missing, naming it', async () => {
    expect(await refusal([plugin({ requires: ['billing'] })])).toContain('"things" requires "billing"')
  })

  test('when plugins require each other in a cycle', async () => {
    const message = await refusal([
      plugin({ name: 'a', requires: ['b'] }),
      plugin({ name: 'b', requires: ['a'] }),
    ])
    expect(message).toContain('cycle')
  })

  test('when an override replaces nothing', async () => {
    expect(await refusal([plugin()], [plugin({ name: 'billing' })])).toContain('replaces nothing')
  })

  test('when an override drops a scope or event kind of the plugin it replaces', async () => {
    const original = plugin({ scopes: [{ name: 'thing:read', description: 'Read things' }] })
    expect(await refusal([original], [plugin({ version: '9.0.0' })])).toContain('missing thing:read')
  })

  test('when a usage metric or section is named quota, the key /usage gives the kernel’s quotas', async () => {
    expect(await refusal([plugin({ usage: [{ name: 'quota', description: 'Quotas' }] })])).toContain(
      'Usage metric "quota" of "things" must be camelCase, not quota',
    )
    const section = { name: 'quota', description: 'Quotas', schema: t.Object({}), read: async () => ({}) }
    expect(await refusal([plugin({ usageSections: [section] })])).toContain('Usage section "quota"')
  })

  test('when two plugins declare the same scope, naming both', async () => {
    const scopes = [{ name: 'thing:read', description: 'Read things' }]
    const message = await refusal([plugin({ scopes }), plugin({ name: 'other', scopes })])
    expect(message).toBe('Scope "thing:read" is declared by both "things" and "other"')
  })

  test('when two plugins declare the same event kind', async () => {
    const events = [{ kind: 'thing.created', description: 'x', payload: t.Object({}) }]
    expect(await refusal([plugin({ events }), plugin({ name: 'other', events })])).toContain(
      'Event kind "thing.created" is declared by both "things" and "other"',
    )
  })

  test('when two plugins declare the same problem code, or one takes a kernel code', async () => {
    const problems = defineProblems({ thing_broken: { status: 409, detail: 'x', description: 'x' } })
    expect(await refusal([plugin({ problems }), plugin({ name: 'other', problems })])).toContain(
      'Problem code "thing_broken" is declared by both "things" and "other"',
    )
    const kernelCode = defineProblems({ not_found: { status: 404, detail: 'x', description: 'x' } })
    expect(await refusal([plugin({ problems: kernelCode })])).toContain('"kernel" and "things"')
  })

  test('when two plugins mount the same method and path, even with other parameter names', async () => {
    const scopes = [{ name: 'thing:read', description: 'Read things' }]
    const first = plugin({ scopes, routes: () => [route({ path: '/things/:id', operationId: 'a' })] })
    const second = plugin({
      name: 'other',
      routes: () => [route({ path: '/things/:thingId', operationId: 'b' })],
    })
    expect(await refusal([first, second])).toContain(
      'Route GET /things/:thingId of "other" names the parameter ":thingId" where GET /things/:id of "things" names ":id"',
    )
  })

  test('when two routes share an operation id', async () => {
    const scopes = [{ name: 'thing:read', description: 'Read things' }]
    const first = plugin({ scopes, routes: () => [route()] })
    const second = plugin({ name: 'other', routes: () => [route({ path: '/others' })] })
    expect(await refusal([first, second])).toContain('Operation id "listThings"')
  })

  test('when a route declares neither a scope nor public: true', async () => {
    const message = await refusal([plugin({ routes: () => [route({ scope: undefined })] })])
    expect(message).toContain('declares neither a scope nor public: true')
  })

  test('when a route is both public and scoped', async () => {
    const scopes = [{ name: 'thing:read', description: 'Read things' }]
    const both = plugin({ scopes, routes: () => [route({ public: true } as Partial<RouteDefinition>)] })
    expect(await refusal([both])).toContain('more than one of scope, public: true and authenticated: true')
  })

  test('when a route needs a scope no plugin declares', async () => {
    expect(await refusal([plugin({ routes: () => [route()] })])).toContain(
      'needs scope "thing:read", which no plugin declares',
    )
  })

  test('when a plugin extends a point of a plugin it does not require', async () => {
    const point = defineExtensionPoint<{ name: string }>({
      id: 'things.kinds',
      owner: 'things',
      description: 'x',
      keyOf: (k) => k.name,
    })
    const owner = plugin({ extensionPoints: [point] })
    const extender = plugin({
      name: 'other',
      setup: (context) => context.extensionPoint(point).add({ name: 'x' }),
    })
    expect(await refusal([owner, extender])).toContain(
      '"other" extends "things.kinds" without requiring "things"',
    )
  })

  test('when two extenders add the same entry to a point', async () => {
    const point = defineExtensionPoint<{ name: string }>({
      id: 'things.kinds',
      owner: 'things',
      description: 'x',
      keyOf: (k) => k.name,
    })
    const owner = plugin({ extensionPoints: [point] })
    const add = (name: string) =>
      plugin({
        name,
        requires: ['things'],
        setup: (context) => context.extensionPoint(point).add({ name: 'shared' }),
      })
    expect(await refusal([owner, add('one'), add('two')])).toContain(
      '"shared" is added by both "one" and "two"',
    )
  })
})

describe('createPanel resolves', () => {
  test('plugins in dependency order whatever order they are listed in', async () => {
    const panel = await build([
      plugin({ name: 'c', requires: ['b'] }),
      plugin({ name: 'b', requires: ['a'] }),
      plugin({ name: 'a' }),
    ])
    expect(panel.plugins.map((p) => p.name)).toEqual(['a', 'b', 'c'])
    await panel.close()
  })

  test('an override that honours the contract, in place of the original', async () => {
    const scopes = [{ name: 'thing:read', description: 'Read things' }]
    const panel = await build([plugin({ scopes })], [plugin({ version: '2.0.0', scopes })])
    expect(panel.plugins).toEqual([{ name: 'things', version: '2.0.0' }])
    await panel.close()
  })

  test('extension points filled by plugins that require the owner, before the owner reads them', async () => {
    const point = defineExtensionPoint<{ name: string }>({
      id: 'things.kinds',
      owner: 'things',
      description: 'x',
      keyOf: (k) => k.name,
    })
    let seenByOwner: string[] = []
    const owner = plugin({
      extensionPoints: [point],
      routes: (context) => {
        seenByOwner = context
          .extensionPoint(point)
          .list()
          .map((kind) => kind.name)
        return []
      },
    })
    const extender = plugin({
      name: 'other',
      requires: ['things'],
      setup: (context) => context.extensionPoint(point).add({ name: 'extra' }),
    })
    const panel = await build([extender, owner])
    expect(seenByOwner).toEqual(['extra'])
    await panel.close()
  })
})
