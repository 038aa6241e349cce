// Failed logins with several instances on one store: counted once across all of them on PostgreSQL. On SQLite,
// whose documented deployment is one process per store, each panel counts in memory: these tests pin both.

import { afterEach, describe, expect, test } from 'bun:test'
import { defaultLoginThrottle } from '../auth/login-throttle.ts'
import type { TestPanel } from '../testing/create-test-panel.ts'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { createTestInstances } from '../testing/instances.ts'
import { expectProblem } from '../testing/problems.ts'
import { testEngine } from '../testing/test-store.ts'
import { testPassword } from '../testing/users.ts'
import { loginThrottleFor } from './shared-login-throttle.ts'

const shared = testEngine === 'postgres'
let open: TestPanel[] = []
afterEach(async () => {
  for (const instance of open) await instance.panel.close()
  open = []
})

async function twoInstances() {
  open = await createTestInstances({ plugins: [], loginThrottle: { stepDelayMs: 1 } })
  return open as [TestPanel, TestPanel]
}

const login = (instance: TestPanel, email: string, password: string) =>
  instance.request('POST', '/api/v1/auth/login', { body: { email, password } })

describe('several instances on one store', () => {
  test('five failures spread over both instances refuse the right password on either: 429 too_many_attempts', async () => {
    const [a, b] = await twoInstances()
    const { email } = await a.staff()
    for (let i = 0; i < 5; i++)
      await expectProblem(
        await login(i % 2 === 0 ? a : b, email, 'a wrong password'),
        401,
        'invalid_credentials',
      )
    const sixth = await login(b, email, testPassword)
    if (shared) {
      const body = await expectProblem(sixth, 429, 'too_many_attempts')
      expect(Number(sixth.headers.get('retry-after'))).toBeWithin(15 * 60 - 5, 15 * 60 + 1)
      expect(body.retryAfter).toBe(Number(sixth.headers.get('retry-after')))
    } else {
      // Instance b saw two of the failures.
      expect(sixth.status).toBe(200)
    }
  })

  test('wrong passwords sent to both instances at once are refused after five in all', async () => {
    const [a, b] = await twoInstances()
    const { email } = await a.staff()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(i % 2 === 0 ? a : b, email, 'a wrong password')),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 401)).toHaveLength(shared ? 5 : 10)
    expect(statuses.filter((status) => status === 429)).toHaveLength(shared ? 15 : 10)
  })

  test('guessing the current password through a token, spread over both instances, is throttled as one', async () => {
    const [a, b] = await twoInstances()
    const token = await a.token()
    const change = (instance: TestPanel) =>
      instance.request('POST', '/api/v1/me/password', {
        token,
        body: { currentPassword: 'a wrong guess', newPassword: 'a brand new passphrase' },
      })
    for (let i = 0; i < 5; i++)
      await expectProblem(await change(i % 2 === 0 ? a : b), 422, 'validation_failed')
    const sixth = await change(b)
    if (shared) await expectProblem(sixth, 429, 'too_many_attempts')
    else await expectProblem(sixth, 422, 'validation_failed')
  })

  test('the right password on one instance forgives the failures counted by the other', async () => {
    const [a, b] = await twoInstances()
    const { email } = await a.staff()
    for (let i = 0; i < 4; i++) await login(i % 2 === 0 ? a : b, email, 'a wrong password')
    expect((await login(a, email, testPassword)).status).toBe(200)
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await login(b, email, 'a wrong password')).status)
    // On SQLite, b still holds its own two failures: its fourth attempt here is refused.
    expect(statuses).toEqual(shared ? [401, 401, 401, 401, 401] : [401, 401, 401, 429, 429])
  })
})

describe('the throttle a store gets', () => {
  test('counts before the check, refuses until the window closes, and forgives on success, as in memory', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    open = [tp]
    const policy = {
      ...defaultLoginThrottle,
      perAccount: 2,
      perAddress: 3,
      windowMs: 60_000,
      stepDelayMs: 100,
    }
    const throttle = loginThrottleFor(tp.panel.store, policy)
    const start = Date.parse('2026-11-23T10:00:00.000Z')
    const first = await throttle.attempt('x@example.test', '192.0.2.9', start)
    const second = await throttle.attempt('x@example.test', '192.0.2.9', start + 1_000)
    expect([first, second]).toEqual([
      { delayMs: 0, succeeded: expect.any(Function) },
      { delayMs: 0, succeeded: expect.any(Function) },
    ])
    // The account is full: refused until its window, opened by the first failure, closes.
    expect(await throttle.attempt('x@example.test', '192.0.2.9', start + 15_000)).toEqual({
      refuseForSeconds: 45,
    })
    // The refusal counted nowhere: the address has one failure left, for another account, slowed by one step.
    const third = await throttle.attempt('y@example.test', '192.0.2.9', start + 16_000)
    expect(third).toEqual({ delayMs: 100, succeeded: expect.any(Function) })
    expect(await throttle.attempt('z@example.test', '192.0.2.9', start + 17_000)).toEqual({
      refuseForSeconds: 43,
    })
    // A success gives the address its attempt back and forgets the account's failures.
    if ('succeeded' in third) await third.succeeded()
    expect(await throttle.attempt('z@example.test', '192.0.2.9', start + 18_000)).toHaveProperty('delayMs')
    // A minute on, both windows have closed.
    expect(await throttle.attempt('x@example.test', '192.0.2.9', start + 60_000)).toEqual({
      delayMs: 0,
      succeeded: expect.any(Function),
    })
  })
})
