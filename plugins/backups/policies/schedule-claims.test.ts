// The schedule's recurring look is started once per interval however many panel instances share the store: the
// first look only records when the next is due; once due, one claim of several wins.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { claimScheduleLook } from './migrations.ts'
import { type PolicyTestPanel, policyTestPanel } from './testing/policy-panel.ts'

let t: PolicyTestPanel

beforeAll(async () => {
  t = await policyTestPanel()
})
afterAll(() => t.close())

test('one claim per interval: none at the first look, one of several once due, none again before the next', async () => {
  const minute = 60_000
  const start = new Date('2026-06-10T01:00:00Z')
  const claim = (at: Date) => t.context.transaction((trx) => claimScheduleLook(trx, minute, at))
  expect(await claim(start)).toBe(false)
  expect(await claim(new Date(start.getTime() + minute - 1))).toBe(false)
  const due = new Date(start.getTime() + minute)
  const claims = await Promise.all([claim(due), claim(due), claim(due)])
  expect(claims.filter(Boolean)).toHaveLength(1)
  expect(await claim(new Date(due.getTime() + minute - 1))).toBe(false)
  expect(await claim(new Date(due.getTime() + minute))).toBe(true)
})
