// Query keys made from the API's paths, and what a change makes stale: the rules every page relies on instead of
// keys and invalidations written by hand.

import { describe, expect, test } from 'bun:test'
import { QueryClient } from '@tanstack/react-query'
import { afterChange, apiKey, isTouchedBy, segmentsOfUrl } from './query-keys.ts'

describe('keys', () => {
  test('come from the path with its parameters filled in, then the query without empty filters or cursor', () => {
    expect(apiKey('/api/v1/sites/{id}', { path: { id: 'site_1' } })).toEqual([
      'api',
      'sites',
      'site_1',
      { query: {}, shape: 'one' },
    ])
    expect(
      apiKey('/api/v1/sites', { query: { status: 'active', customerId: undefined, cursor: 'x' } }, 'pages'),
    ).toEqual(['api', 'sites', { query: { status: 'active' }, shape: 'pages' }])
  })

  test('refuse a template whose parameter is not given', () => {
    expect(() => apiKey('/api/v1/sites/{id}')).toThrow('needs the path parameter id')
  })

  test('of a request are its URL below the API base, decoded, whatever the base', () => {
    expect(segmentsOfUrl('/panel/api/v1/sites/site_1/files', '/panel/api/v1')).toEqual([
      'sites',
      'site_1',
      'files',
    ])
    expect(segmentsOfUrl('/api/v1/users/a%40b', '/api/v1')).toEqual(['users', 'a@b'])
    expect(segmentsOfUrl('/assets/app.js', '/api/v1')).toBeNull()
  })
})

describe('a change at a path', () => {
  const key = (template: string, id?: string, query: Record<string, unknown> = {}) =>
    apiKey(template, { path: id ? { id } : {}, query })

  test('makes stale what is at it or below it, and the paths above it whatever their query', () => {
    const changed = ['sites', 'site_1', 'suspend']
    expect(isTouchedBy(changed, key('/api/v1/sites/{id}', 'site_1'))).toBe(true)
    expect(isTouchedBy(changed, key('/api/v1/sites', undefined, { status: 'active' }))).toBe(true)
    expect(isTouchedBy(['sites', 'site_1'], key('/api/v1/sites/{id}/files', 'site_1', { path: '/' }))).toBe(
      true,
    )
  })

  test('leaves other resources and siblings alone, and keys no read of the API made', () => {
    const changed = ['sites', 'site_1', 'suspend']
    expect(isTouchedBy(changed, key('/api/v1/sites/{id}', 'site_2'))).toBe(false)
    expect(isTouchedBy(changed, key('/api/v1/sites/{id}/files', 'site_1'))).toBe(false)
    expect(isTouchedBy(changed, key('/api/v1/certificates'))).toBe(false)
    expect(isTouchedBy(changed, ['editor', 'site_1', '/index.php'])).toBe(false)
  })

  /** A cache holding the answers of `keys`, each fresh. */
  function cacheOf(keys: readonly (readonly unknown[])[]): QueryClient {
    const queries = new QueryClient()
    for (const queryKey of keys) queries.setQueryData(queryKey, { read: true })
    return queries
  }
  const site = key('/api/v1/sites/{id}', 'site_1')
  const list = key('/api/v1/sites')
  const other = key('/api/v1/certificates')

  test('marks stale the answers it touched, and only those', async () => {
    const queries = cacheOf([site, list, other])
    await afterChange(queries, { method: 'PATCH', segments: ['sites', 'site_1'], status: 200 })
    expect(queries.getQueryState(site)?.isInvalidated).toBe(true)
    expect(queries.getQueryState(list)?.isInvalidated).toBe(true)
    expect(queries.getQueryState(other)?.isInvalidated).toBe(false)
  })

  test('by a DELETE answered 204 forgets what was there, which would be a 404 if read again', async () => {
    const queries = cacheOf([site, list])
    await afterChange(queries, { method: 'DELETE', segments: ['sites', 'site_1'], status: 204 })
    expect(queries.getQueryState(site)).toBeUndefined()
    expect(queries.getQueryState(list)?.isInvalidated).toBe(true)
  })

  test('by a DELETE answered 202 keeps it, to be read again while it is removed', async () => {
    const queries = cacheOf([site])
    await afterChange(queries, { method: 'DELETE', segments: ['sites', 'site_1'], status: 202 })
    expect(queries.getQueryState(site)?.isInvalidated).toBe(true)
  })
})
