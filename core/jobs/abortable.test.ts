import { describe, expect, test } from 'bun:test'
import { abortable } from './abortable.ts'

describe('abortable', () => {
  test('answers the work’s value, or its failure, while the signal is not aborted', async () => {
    const signal = new AbortController().signal
    expect(await abortable(Promise.resolve(7), signal)).toBe(7)
    await expect(abortable(Promise.reject(new Error('refused')), signal)).rejects.toThrow('refused')
  })

  test('rejects with the signal’s reason as soon as it is aborted, the work still pending', async () => {
    const controller = new AbortController()
    const pending = abortable(new Promise<number>(() => {}), controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(pending).rejects.toThrow('cancelled')
  })

  test('an already aborted signal rejects at once, and the work’s later failure is not left unhandled', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stopping'))
    let fail: (error: Error) => void = () => {}
    const work = new Promise<number>((_, reject) => {
      fail = reject
    })
    await expect(abortable(work, controller.signal)).rejects.toThrow('stopping')
    fail(new Error('late'))
    await Bun.sleep(0)
  })
})
