// Whole-file writes: readers never see a half-written file, an abort before the rename changes nothing.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { directoryBytes, writeFileAtomic, writeFileIfAbsent } from './atomic-files.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-atomic-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const never = () => new AbortController().signal

/** A signal that lets `passes` checks through, then reports an abort: stops a write between its steps. */
function abortingAfter(passes: number): AbortSignal {
  let checks = 0
  const controller = new AbortController()
  return Object.assign(Object.create(controller.signal) as AbortSignal, {
    throwIfAborted() {
      if (++checks > passes) throw new Error('aborted midway')
    },
  })
}

describe('writeFileAtomic', () => {
  test('replaces the whole file and leaves no temporary file behind', async () => {
    const path = join(dir, 'config')
    await writeFileAtomic(path, 'first', never())
    await writeFileAtomic(path, 'second', never())
    expect(readFileSync(path, 'utf8')).toBe('second')
    expect(statSync(path).mode & 0o777).toBe(0o644)
    expect(readdirSync(dir).filter((name) => name.startsWith('config'))).toEqual(['config'])
  })

  test('an abort after the temporary file is written keeps the old file and removes the temporary one', async () => {
    const path = join(dir, 'kept')
    writeFileSync(path, 'old')
    await expect(writeFileAtomic(path, 'new', abortingAfter(1))).rejects.toThrow('aborted midway')
    expect(readFileSync(path, 'utf8')).toBe('old')
    expect(readdirSync(dir).filter((name) => name.startsWith('kept'))).toEqual(['kept'])
  })
})

describe('writeFileIfAbsent', () => {
  test('creates the file once; later calls leave it as it is', async () => {
    const path = join(dir, 'index.html')
    expect(await writeFileIfAbsent(path, 'placeholder', never())).toBe(true)
    writeFileSync(path, 'customer page')
    expect(await writeFileIfAbsent(path, 'placeholder', never())).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe('customer page')
    expect(readdirSync(dir).filter((name) => name.startsWith('index.html'))).toEqual(['index.html'])
  })

  test('an abort before linking creates nothing', async () => {
    const path = join(dir, 'never.html')
    await expect(writeFileIfAbsent(path, 'x', abortingAfter(1))).rejects.toThrow('aborted midway')
    expect(readdirSync(dir).filter((name) => name.startsWith('never'))).toEqual([])
  })
})

describe('directoryBytes', () => {
  test('is 0 for a directory that does not exist', async () => {
    expect(await directoryBytes(join(dir, 'missing'))).toBe(0)
  })
})
