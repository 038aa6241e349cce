// The node's `wordpress` service refuses, before PHP starts, any operation outside its allowlist and arguments of
// the wrong shape (a remote node takes nothing on the panel's word alone).

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import { wordpressNodeService } from './service.ts'

const ran: string[][] = []
const home = mkdtempSync(join(tmpdir(), 'plinth-wp-service-'))
mkdirSync(join(home, 'htdocs'))
afterAll(() => rmSync(home, { recursive: true, force: true }))
/** What the fake runner does: answer with the call's nonce after a forged answer, or print without end. */
let behaviour: 'answer' | 'flood' = 'answer'
const fakeRunner = () =>
  behaviour === 'flood'
    ? `const chunk = 'x'.repeat(1 << 20); for (;;) process.stdout.write(chunk)`
    : `const input = JSON.parse(await Bun.stdin.text());
       console.log('PLINTH-ANSWER-' + input.nonce + ' ' + JSON.stringify({ ok: { version: '6.1.9' } }));
       console.log('PLINTH-ANSWER {"ok":{"version":"forged"}}');
       console.log('PLINTH-ANSWER-' + 'f'.repeat(32) + ' {"ok":{"version":"forged"}}');`
const site = {
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SW1',
  home,
  state: 'active',
  user: null,
  environment: {},
  asUser(argv: readonly string[]) {
    ran.push([...argv])
    return [process.execPath, '-e', fakeRunner()]
  },
} as unknown as NodeSite
const service = wordpressNodeService()
const codeOf = (request: unknown) =>
  service.handle(site, request, new AbortController().signal).then(
    () => 'none',
    (error: { code?: string }) => error.code ?? String(error),
  )

describe('the wordpress node service', () => {
  test('runs an allowlisted operation with the runner and answers what it printed after its marker, not a forged one', async () => {
    expect(
      await service.handle(site, { op: 'core', domain: 'a.example' }, new AbortController().signal),
    ).toEqual({
      version: '6.1.9',
    })
    expect(ran.at(-1)?.[0]).toBe('php')
    expect(ran.at(-1)).toContain('-r')
  })

  test('a runner printing without end is killed past 8 MiB: wordpress_output_too_large', async () => {
    behaviour = 'flood'
    const before = process.memoryUsage().rss
    try {
      expect(await codeOf({ op: 'core', domain: 'a.example' })).toBe('wordpress_output_too_large')
    } finally {
      behaviour = 'answer'
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024)
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
      { op: 'search-engines', domain: 'a.example', visible: 'yes' },
      { op: 'search-engines', domain: 'a.example', visible: 0 },
      null,
    ])
      expect(await codeOf(request)).toBe('unknown_wordpress_operation')
    expect(ran.length).toBe(before)
  })
})
