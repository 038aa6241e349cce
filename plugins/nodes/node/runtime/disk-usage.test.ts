// Disk usage of a site: its own files, never what its links point to.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { directoryBytes } from './disk-usage.ts'

const root = mkdtempSync(join(tmpdir(), 'plinth-disk-usage-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('directoryBytes', () => {
  test('is 0 for a directory that does not exist', async () => {
    expect(await directoryBytes(join(root, 'missing'))).toBe(0)
  })

  test('adds up the files of every level', async () => {
    const dir = join(root, 'levels')
    mkdirSync(join(dir, 'a', 'b'), { recursive: true })
    writeFileSync(join(dir, 'top.txt'), new Uint8Array(10))
    writeFileSync(join(dir, 'a', 'b', 'deep.bin'), new Uint8Array(1000))
    expect(await directoryBytes(dir)).toBe(1010)
  })

  // BUG (fixed): Bun's recursive readdir follows links to directories, so a site linking to `/` (or to a big
  // directory elsewhere) was charged for it, and a report walked the whole machine.
  test('counts a link to a directory as the link, not what it points to', async () => {
    const outside = join(root, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'big.bin'), new Uint8Array(1_000_000))
    const dir = join(root, 'linking')
    mkdirSync(dir)
    symlinkSync(outside, join(dir, 'elsewhere'))
    symlinkSync('/', join(dir, 'root'))
    expect(await directoryBytes(dir)).toBeLessThan(1000)
  })
})
