// `enhances`: a plugin adds to another when that one is mounted, and mounts without it: set up after it when it is
// there, its additions kept nowhere when it is not.

import { expect, test } from 'bun:test'
import { createPanel } from '../panel/create-panel.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { definePlugin, type PluginDefinition } from './define-plugin.ts'
import { defineExtensionPoint } from './extension-point.ts'
import { PluginResolutionError } from './resolve-plugins.ts'

const shelves = defineExtensionPoint<string>({
  id: 'shelf.items',
  owner: 'shelf',
  description: 'What other plugins put on the shelf.',
  keyOf: (item) => item,
})

/** The owner of `shelf.items`, recording what it read once the panel was set up. */
function shelfPlugin(seen: { setUp: string[]; items: readonly string[] | null }) {
  return definePlugin({
    name: 'shelf',
    version: '1.0.0',
    description: 'A shelf.',
    extensionPoints: [shelves],
    setup: () => void seen.setUp.push('shelf'),
    routes(context) {
      seen.items = context.extensionPoint(shelves).list()
      return []
    },
  })
}

/** A plugin putting a book on the shelf when there is one. */
function bookPlugin(seen: { setUp: string[] }, overrides: Partial<PluginDefinition> = {}) {
  return definePlugin({
    name: 'book',
    version: '1.0.0',
    description: 'A book.',
    enhances: ['shelf'],
    setup(context) {
      seen.setUp.push('book')
      context.extensionPoint(shelves).add('a book')
    },
    ...overrides,
  })
}

async function mount(plugins: PluginDefinition[]): Promise<void> {
  const panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins,
    secret: 'a-secret-that-is-long-enough-for-tests',
  })
  await panel.close()
}

test('a plugin mounts without the plugin it enhances, and what it adds to it goes nowhere', async () => {
  const seen = { setUp: [] as string[] }
  await mount([bookPlugin(seen)])
  expect(seen.setUp).toEqual(['book'])
})

test('with the enhanced plugin mounted, even listed after, it is set up first and reads the addition', async () => {
  const seen = { setUp: [] as string[], items: null as readonly string[] | null }
  await mount([bookPlugin(seen), shelfPlugin(seen)])
  expect(seen.setUp).toEqual(['shelf', 'book'])
  expect(seen.items).toEqual(['a book'])
})

test('a plugin that neither requires nor enhances an owner still may not add to its points', async () => {
  const seen = { setUp: [] as string[], items: null as readonly string[] | null }
  const error = await mount([bookPlugin(seen, { enhances: [] }), shelfPlugin(seen)]).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(PluginResolutionError)
  expect((error as Error).message).toContain('"book" extends "shelf.items" without requiring "shelf"')
})

test('enhancing a plugin that requires it back is a cycle, refused at start-up', async () => {
  const seen = { setUp: [] as string[], items: null as readonly string[] | null }
  const shelf = { ...shelfPlugin(seen), requires: ['book'] }
  const error = await mount([bookPlugin(seen), shelf]).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(PluginResolutionError)
  expect((error as Error).message).toContain('cycle')
})
