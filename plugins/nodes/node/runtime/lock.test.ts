// The lock the masters' start and stop hold across processes: one holder at a time, a live holder waited for, a
// killed one's lock taken at once, and never by two processes finding it free together.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { acrossProcesses } from './lock.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-lock-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A process holding `lock` until killed; resolves once it holds it. */
async function holderOf(lock: string): Promise<Bun.Subprocess> {
  const holder = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { acrossProcesses } = await import(${JSON.stringify(join(import.meta.dir, 'lock.ts'))})
       await acrossProcesses(${JSON.stringify(lock)}, async () => { console.log('held'); await new Promise(() => {}) })`,
    ],
    { stdout: 'pipe' },
  )
  const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toContain('held')
  reader.releaseLock()
  return holder
}

describe('a lock across processes', () => {
  test('tasks under it run one at a time (in one process too), and it is free after', async () => {
    const lock = join(dir, 'one.lock')
    const order: string[] = []
    const task = (name: string) => async () => {
      order.push(`${name} in`)
      await Bun.sleep(100)
      order.push(`${name} out`)
    }
    await Promise.all([acrossProcesses(lock, task('a')), acrossProcesses(lock, task('b'))])
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out'])
    expect(await acrossProcesses(lock, async () => 'free', 100)).toBe('free')
  })

  test('a live holder (another process) is waited for; once it is killed, the lock is taken at once', async () => {
    const held = join(dir, 'held.lock')
    const holder = await holderOf(held)
    expect(readFileSync(held, 'utf8')).toBe(`${holder.pid}\n`)
    let ran = false
    const waiting = acrossProcesses(held, async () => {
      ran = true
    })
    await Bun.sleep(300)
    expect(ran).toBe(false)
    // Killed while holding it (SIGKILL of the panel during a start): the kernel frees it with its holder.
    holder.kill('SIGKILL')
    await holder.exited
    const killed = performance.now()
    await waiting
    expect(ran).toBe(true)
    expect(performance.now() - killed).toBeLessThan(1_000)
  })

  test('a lock an earlier version left (a folder naming a pid, which another process may have since) is taken', async () => {
    const earlier = join(dir, 'earlier.lock')
    mkdirSync(earlier)
    writeFileSync(join(earlier, 'pid'), String(process.pid))
    expect(await acrossProcesses(earlier, async () => 'done', 1_000)).toBe('done')
  })

  test('processes that find a killed holder’s lock at the same moment still take it one at a time', async () => {
    const here = join(import.meta.dir, 'lock.ts')
    /** A process taking the lock once `go` exists; the task writes `in` and `out` around 30 ms. */
    const contender = (lock: string, log: string, go: string) =>
      Bun.spawn([
        process.execPath,
        '-e',
        `const { acrossProcesses } = await import(${JSON.stringify(here)})
         const { appendFileSync, existsSync } = await import('node:fs')
         while (!existsSync(${JSON.stringify(go)})) await Bun.sleep(1)
         await acrossProcesses(${JSON.stringify(lock)}, async () => {
           appendFileSync(${JSON.stringify(log)}, 'in\\n')
           await Bun.sleep(30)
           appendFileSync(${JSON.stringify(log)}, 'out\\n')
         })`,
      ])
    let overlapping = 0
    for (let trial = 0; trial < 6; trial++) {
      const lock = join(dir, `contended-${trial}.lock`)
      const [log, go] = [join(dir, `contended-${trial}.log`), join(dir, `contended-${trial}.go`)]
      // The lock as a holder killed while holding it left it.
      const holder = await holderOf(lock)
      holder.kill('SIGKILL')
      await holder.exited
      const contenders = Array.from({ length: 6 }, () => contender(lock, log, go))
      await Bun.sleep(300)
      writeFileSync(go, '')
      expect(await Promise.all(contenders.map((each) => each.exited))).toEqual([0, 0, 0, 0, 0, 0])
      let depth = 0
      let deepest = 0
      for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
        depth += line === 'in' ? 1 : -1
        deepest = Math.max(deepest, depth)
      }
      if (deepest > 1) overlapping++
    }
    expect(overlapping).toBe(0)
  }, 60_000)
})
