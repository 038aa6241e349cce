import { describe, expect, test } from 'bun:test'
import { contentionGate } from './contention-gate.ts'

/** Work that records how many run at once. */
function tracked() {
  let running = 0
  let most = 0
  return {
    get most() {
      return most
    },
    async work() {
      running++
      most = Math.max(most, running)
      await Bun.sleep(5)
      running--
    },
  }
}

describe('contentionGate', () => {
  test('first attempts run at once while nothing collided', async () => {
    const gate = contentionGate()
    const load = tracked()
    await Promise.all(Array.from({ length: 5 }, () => gate.run(false, () => load.work())))
    expect(load.most).toBe(5)
  })

  test('retries run one at a time, in the order they came', async () => {
    const gate = contentionGate()
    const load = tracked()
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        gate.run(true, async () => {
          order.push(i)
          await load.work()
        }),
      ),
    )
    expect(load.most).toBe(1)
    expect(order).toEqual([0, 1, 2, 3, 4])
  })

  test('after a collision first attempts too run one at a time, and freely again once it is past', async () => {
    let now = 1_000
    const gate = contentionGate(() => now)
    gate.collided()
    const contended = tracked()
    await Promise.all(Array.from({ length: 4 }, () => gate.run(false, () => contended.work())))
    expect(contended.most).toBe(1)
    now += 1_000
    const calm = tracked()
    await Promise.all(Array.from({ length: 4 }, () => gate.run(false, () => calm.work())))
    expect(calm.most).toBe(4)
  })

  test('a failed attempt lets the next one through', async () => {
    const gate = contentionGate()
    const failed = gate.run(true, async () => {
      throw new Error('collided')
    })
    const next = gate.run(true, async () => 'done')
    await expect(failed).rejects.toThrow('collided')
    expect(await next).toBe('done')
  })
})
