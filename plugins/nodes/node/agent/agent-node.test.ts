// The node modules an agent loads when the panel names them: a plugin's node/index.ts of the agent's own install,
// written by no other user than root's or the agent's; never a file a site could have written (a data directory
// inside the install), never one outside it, through a link or a climb.

import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importModule } from './agent-node.ts'

const root = mkdtempSync(join(tmpdir(), 'plinth-agent-install-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A node module file named `name` at `path` below the fake install. */
function moduleAt(path: string, name: string): string {
  const file = join(root, path)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(
    file,
    `export default { name: ${JSON.stringify(name)}, source: import.meta.url, create: () => ({}) }\n`,
  )
  return file
}

describe('the modules an agent loads', () => {
  test('a plugin’s node module of its own install, by its name', async () => {
    moduleAt('plugins/notes/node/index.ts', 'notes')
    expect((await importModule({ name: 'notes', source: 'plugins/notes/node/index.ts' }, root)).name).toBe(
      'notes',
    )
  })

  test('the standard ones, from the real install', async () => {
    expect((await importModule({ name: 'files', source: 'plugins/files/node/index.ts' })).name).toBe('files')
  })

  test('never a file that is not a node module, outside the install, or climbing out of it', async () => {
    moduleAt('plugins/notes/helper.ts', 'notes')
    for (const source of [
      'plugins/notes/helper.ts',
      '../etc/node/index.ts',
      '/etc/node/index.ts',
      'node/index.ts',
    ])
      await expect(importModule({ name: 'notes', source }, root)).rejects.toThrow(
        /not a node module of the agent/,
      )
  })

  test('never through a link that leads out of the install', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'plinth-agent-outside-'))
    mkdirSync(join(outside, 'node'), { recursive: true })
    writeFileSync(join(outside, 'node', 'index.ts'), 'export default { name: "away", create: () => ({}) }\n')
    mkdirSync(join(root, 'plugins'), { recursive: true })
    symlinkSync(outside, join(root, 'plugins', 'away'))
    await expect(importModule({ name: 'away', source: 'plugins/away/node/index.ts' }, root)).rejects.toThrow(
      /not a node module of the agent/,
    )
    rmSync(outside, { recursive: true, force: true })
  })

  test('never a file another user could have written: a site’s own files in a data directory inside the install', async () => {
    const file = moduleAt('agent-data/sites/site_x/htdocs/node/index.ts', 'files')
    chownSync(file, 1000, 1000)
    await expect(
      importModule({ name: 'files', source: 'agent-data/sites/site_x/htdocs/node/index.ts' }, root),
    ).rejects.toThrow(/may be written by another user/)
    const writable = moduleAt('plugins/open/node/index.ts', 'open')
    chmodSync(join(writable, '..'), 0o777)
    await expect(importModule({ name: 'open', source: 'plugins/open/node/index.ts' }, root)).rejects.toThrow(
      /may be written by another user/,
    )
  })

  test('a module the install lacks is told as such (an agent older than the panel)', async () => {
    await expect(importModule({ name: 'dns', source: 'plugins/dns/node/index.ts' }, root)).rejects.toThrow(
      /this install has no plugins\/dns\/node\/index.ts/,
    )
  })
})
