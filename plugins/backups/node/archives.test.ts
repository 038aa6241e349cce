// The archives a node keeps of snapshots: read in pieces of at most 4 MiB whatever is asked, kept per site (another
// site's id reads nothing), refused by an id of another shape, and removed an hour after they were made.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { archiveChunkBytes, archiveLifetimeMs, archiveStore } from './archives.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-archives-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('archives of snapshots', () => {
  test('are read in pieces of at most 4 MiB, per site, and expire after an hour', async () => {
    const store = archiveStore(folder)
    const { id, path } = store.allot('site_a')
    mkdirSync(dirname(path), { recursive: true })
    const bytes = Buffer.alloc(archiveChunkBytes + 1000, 7)
    writeFileSync(path, bytes)
    const first = await store.read('site_a', id, 0, 64 * 1024 * 1024)
    expect(Buffer.from(first.data, 'base64').length).toBe(archiveChunkBytes)
    expect(first.totalBytes).toBe(bytes.length)
    const rest = await store.read('site_a', id, archiveChunkBytes, archiveChunkBytes)
    expect(Buffer.from(rest.data, 'base64').length).toBe(1000)
    expect((await store.read('site_a', id, bytes.length, 10)).data).toBe('')
    await expect(store.read('site_b', id, 0, 10)).rejects.toThrow(/no such archive/)
    await expect(store.read('site_a', '../../etc/passwd', 0, 10)).rejects.toThrow(/no such archive/)
    await store.sweep()
    expect((await store.read('site_a', id, 0, 1)).totalBytes).toBe(bytes.length)
    const old = (Date.now() - archiveLifetimeMs - 60_000) / 1000
    utimesSync(path, old, old)
    await store.sweep()
    await expect(store.read('site_a', id, 0, 10)).rejects.toThrow(/no such archive/)
  })

  test('a site keeps one archive: a newer one drops its older ones, never another site’s', async () => {
    const store = archiveStore(folder)
    const write = (siteId: string) => {
      const made = store.allot(siteId)
      mkdirSync(dirname(made.path), { recursive: true })
      writeFileSync(made.path, 'archive')
      return made.id
    }
    const older = write('site_c')
    const others = write('site_d')
    const newer = write('site_c')
    await store.dropOthers('site_c', newer)
    await expect(store.read('site_c', older, 0, 10)).rejects.toThrow(/no such archive/)
    expect((await store.read('site_c', newer, 0, 10)).totalBytes).toBe(7)
    expect((await store.read('site_d', others, 0, 10)).totalBytes).toBe(7)
  })
})
