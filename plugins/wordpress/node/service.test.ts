// The node's `wordpress` service refuses, before PHP starts, any operation outside its allowlist and arguments of
// the wrong shape (a remote node takes nothing on the panel's word alone).

import { describe, expect, test } from 'bun:test'
import type { NodeSite } from '../../nodes/contract.ts'
import { wordpressNodeService } from './service.ts'

const ran: string[][] = []
const site = {
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SW1',
  home: '/nonexistent',
  state: 'active',
  user: null,
  async run(argv: readonly string[]) {
    ran.push([...argv])
    return { code: 0, stdout: '\nPLINTH-ANSWER {"ok":{"version":"6.1.9"}}\n', stderr: '' }
  },
} as unknown as NodeSite
const service = wordpressNodeService()
const codeOf = (request: unknown) =>
  service.handle(site, request, new AbortController().signal).then(
    () => 'none',
    (error: { code?: string }) => error.code ?? String(error),
  )

describe('the wordpress node service', () => {
  test('runs an allowlisted operation with the runner and answers what it printed after its marker', async () => {
    expect(
      await service.handle(site, { op: 'core', domain: 'a.example' }, new AbortController().signal),
    ).toEqual({
      version: '6.1.9',
    })
    expect(ran.at(-1)?.[0]).toBe('php')
    expect(ran.at(-1)).toContain('-r')
  })

  test('refuses other operations and arguments of the wrong shape before running anything', async () => {
    const before = ran.length
    for (const request of [
      { op: 'eval', domain: 'a.example', code: 'phpinfo();' },
      { op: 'cli', domain: 'a.example', argv: ['--exec=phpinfo();'] },
      { op: 'core' },
      { op: 'plugins.activate', domain: 'a.example', slug: '../../wp-config' },
      { op: 'users.password', domain: 'a.example', userId: 1, password: 'short' },
      { op: 'users.list', domain: 'a.example', after: -1, limit: 2 },
      { op: 'search-replace', domain: 'a.example', from: 'x', to: 'http://b.example', dryRun: true },
      null,
    ])
      expect(await codeOf(request)).toBe('unknown_wordpress_operation')
    expect(ran.length).toBe(before)
  })
})
