// The console's generated API types are those of the served document: a route, field or problem changed in a plugin
// without `bun scripts/write-api-types.ts` fails here, before a page compiles against a stale API. Every file is
// checked: the console's own, each standard plugin's, and those of the examples' plugins that add console pages.

import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { documentOf, installationPanel } from '../../scripts/served-document.ts'
import { type ApiTypesFile, apiTypesFiles, apiTypesOf, shown } from './api-types.ts'

const root = resolve(import.meta.dir, '..', '..')

/** The files `configPath`'s installation makes (the standard one without), each with what it should hold. */
async function expectedFiles(configPath?: string): Promise<{ file: ApiTypesFile; contents: string }[]> {
  const panel = await installationPanel(configPath)
  try {
    const document = await documentOf(panel)
    const files = apiTypesFiles(panel).filter(
      (file) => configPath === undefined || !file.path.startsWith(join(root, 'plugins')),
    )
    return await Promise.all(
      files.map(async (file) => ({ file, contents: await apiTypesOf(document, file) })),
    )
  } finally {
    await panel.close()
  }
}

function expectCommitted(expected: { file: ApiTypesFile; contents: string }[], command: string): void {
  const stale = expected
    .filter(({ file, contents }) => !existsSync(file.path) || readFileSync(file.path, 'utf8') !== contents)
    .map(({ file }) => shown(file.path))
  if (stale.length > 0)
    throw new Error(`${stale.join(', ')} out of date with /api/docs: run \`${command}\` and commit them`)
  expect(stale).toEqual([])
}

test('the committed API types of the console and every standard plugin match the served OpenAPI document', async () => {
  const expected = await expectedFiles()
  // The console's own, and one for each area that brings its pages.
  expect(expected.length).toBeGreaterThan(10)
  expectCommitted(expected, 'node_modules/.bin/bun scripts/write-api-types.ts')
})

test('the committed API types of the examples’ console pages match their installations’ documents', async () => {
  const examples = readdirSync(join(root, 'examples')).filter(
    (name) =>
      existsSync(join(root, 'examples', name, 'plinth.config.ts')) &&
      existsSync(join(root, 'examples', name, 'console')),
  )
  for (const name of examples) {
    const config = join(root, 'examples', name, 'plinth.config.ts')
    const expected = await expectedFiles(config)
    expect(expected.length).toBeGreaterThan(0)
    expectCommitted(
      expected,
      `node_modules/.bin/bun scripts/write-api-types.ts examples/${name}/plinth.config.ts`,
    )
  }
})
