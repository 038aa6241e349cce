// The lock the masters' start and stop hold across processes: one holder at a time, a live holder waited for, a
// dead one's lock taken over at once.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { acrossProcesses } from './lock.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a lock across processes', () => {
  test('tasks under it run one at a time, and it is gone after', async () => {
    const lock = join(dir, 'one.lock')
    const order: string[] = []
    const task = (name: string) => async () => {
      order.push(`${name} in`)
      await Bun.sleep(100)
      order.push(`${name} out`)
    }
    await Promise.all([acrossProcesses(lock, task('a')), acrossProcesses(lock, task('b'))])
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out'])
    expect(existsSync(lock)).toBe(false)
  })

  test('a live holder (another process) is waited for; a dead one’s lock is taken over at once', async () => {
    const held = join(dir, 'held.lock')
    const holder = Bun.spawn(['sleep', '30'])
    mkdirSync(held)
    writeFileSync(join(held, 'pid'), String(holder.pid))
    let ran = false
    const waiting = acrossProcesses(held, async () => {
      ran = true
    })
    await Bun.sleep(300)
    expect(ran).toBe(false)
    // Killed while holding it (SIGKILL of the panel during a start): the lock is taken over.
    holder.kill('SIGKILL')
    await holder.exited
    await waiting
    expect(ran).toBe(true)

    const stale = join(dir, 'stale.lock')
    const gone = Bun.spawn(['true'])
    await gone.exited
    mkdirSync(stale)
    writeFileSync(join(stale, 'pid'), String(gone.pid))
    const started = performance.now()
    expect(await acrossProcesses(stale, async () => 'done')).toBe('done')
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  test('a holder’s pid now another process’s (given again after a kill, or after a reboot) does not hold it', async () => {
    const reused = join(dir, 'reused.lock')
    // What a holder writes, as it wrote it.
    const record = await acrossProcesses(reused, async () => readFileSync(join(reused, 'pid'), 'utf8'))
    // Killed while holding it, its pid since given to another process (alive, but not the holder).
    const other = Bun.spawn(['sleep', '30'])
    try {
      mkdirSync(reused)
      writeFileSync(join(reused, 'pid'), record.replace(/^\d+/, String(other.pid)))
      const started = performance.now()
      expect(await acrossProcesses(reused, async () => 'done', 3_000)).toBe('done')
      expect(performance.now() - started).toBeLessThan(1_000)
    } finally {
      other.kill('SIGKILL')
    }
  })
})
