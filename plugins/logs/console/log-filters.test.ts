import { expect, test } from 'bun:test'
import { logQuery, noFilters, statusClass } from './log-filters.ts'

test('the query holds only what is set, and status for the access log only', () => {
  expect(logQuery('access', noFilters)).toEqual({ lines: '100' })
  const filters = { lines: ' 20 ', since: '2026-11-29T10:00:00.000Z', status: '5xx', search: ' wp-login ' }
  expect(logQuery('access', filters)).toEqual({
    lines: '20',
    since: filters.since,
    status: '5xx',
    search: 'wp-login',
  })
  expect(logQuery('php', filters)).toEqual({ lines: '20', since: filters.since, search: 'wp-login' })
})

test('statuses are shown by class', () => {
  expect([200, 301, 404, 503].map(statusClass)).toEqual(['ok', 'ok', 'client', 'server'])
})
