// Whole-file writes: readers never see a half-written file, an abort before the rename changes nothing.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeAbandonedTemporaries, writeFileAtomic, writeFileIfAbsent } from './atomic-files.ts'

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

describe('removeAbandonedTemporaries', () => {
  /** The pid of a process that has exited (so no process has it now). */
  async function deadPid(): Promise<number> {
    const child = Bun.spawn(['true'])
    await child.exited
    return child.pid
  }

  // BUG (fixed): a server killed (SIGKILL) between writing a temporary file and renaming it left
  // `index.html.<pid>.<random>.tmp` in the site's document root for good; the repeated run wrote the file again
  // under a new temporary name and never removed the old one.
  test('removes what a killed write left behind (a dead pid, or this pid reused after a restart), and nothing else', async () => {
    const sub = mkdtempSync(join(dir, 'sweep-'))
    const target = join(sub, 'nginx.conf')
    const dead = await deadPid()
    const live = process.ppid
    const names = {
      deadWriter: `nginx.conf.${dead}.0123456789ab.tmp`,
      reusedPid: `nginx.conf.${process.pid}.0123456789ac.tmp`,
      liveWriter: `nginx.conf.${live}.0123456789ad.tmp`,
      staleLiveWriter: `nginx.conf.${live}.0123456789ae.tmp`,
      customerFile: 'notes.tmp',
      lookalike: 'nginx.conf.tmp',
      otherTarget: `state.json.${dead}.0123456789af.tmp`,
    }
    for (const name of Object.values(names)) writeFileSync(join(sub, name), 'x')
    const twoMinutesAgo = new Date(Date.now() - 120_000)
    utimesSync(join(sub, names.staleLiveWriter), twoMinutesAgo, twoMinutesAgo)

    expect(await removeAbandonedTemporaries([target])).toBe(3)
    expect(readdirSync(sub).sort()).toEqual(
      [names.customerFile, names.liveWriter, names.lookalike, names.otherTarget].sort(),
    )
  })

  test('leaves a write under way in this process alone', async () => {
    const path = join(dir, 'under-way')
    let sweep: Promise<number> | undefined
    let checks = 0
    const controller = new AbortController()
    // At the check between writing the temporary file and renaming it, another run of the driver sweeps; the
    // pause lets the sweep list the folder (off the main thread) while the temporary file is surely there.
    const signal = Object.assign(Object.create(controller.signal) as AbortSignal, {
      throwIfAborted() {
        if (++checks !== 2) return
        sweep = removeAbandonedTemporaries([path])
        Bun.sleepSync(50)
      },
    })
    await writeFileAtomic(path, 'whole', signal)
    expect(await sweep).toBe(0)
    expect(readFileSync(path, 'utf8')).toBe('whole')
  })

  test('is fine when the folder does not exist', async () => {
    expect(await removeAbandonedTemporaries([join(dir, 'missing', 'index.html')])).toBe(0)
  })
})
