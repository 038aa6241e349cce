// The sites' network table as written: what the kernel's nftables accepts (`nft --check`, which loads nothing) for
// every shape of what the sites may reach, and the addresses it leaves out because a range holds them already.

import { describe, expect, test } from 'bun:test'
import { networkRules, networkTableName, type SiteReach } from './network-rules.ts'

const table = networkTableName(`/tmp/plinth-rules-${Math.random().toString(36).slice(2)}`)

/** What `nft --check` says of `script`: its exit code and words. */
function check(script: string): { code: number; said: string } {
  const result = Bun.spawnSync(['nft', '--check', '-f', '-'], { stdin: Buffer.from(script), stderr: 'pipe' })
  return { code: result.exitCode, said: result.stderr.toString() }
}

const reach = (overrides: Partial<SiteReach> = {}): SiteReach => ({
  siteUids: [1001, 1002],
  ports: [80, 443, 3306],
  resolvers: ['127.0.0.53'],
  closed: [],
  siteServers: [],
  ...overrides,
})

describe('the sites’ network table', () => {
  test('is named after its data directory, within what nft allows', () => {
    expect(table).toMatch(/^plinth_sites_[0-9a-f]{12}$/)
    expect(networkTableName('/srv/a')).not.toBe(networkTableName('/srv/b'))
  })

  test('nft accepts it with no site yet, IPv6 resolvers with a zone, and an agent’s panel on both families', () => {
    for (const shape of [
      reach({ siteUids: [], resolvers: [] }),
      reach({ resolvers: ['127.0.0.11', 'fe80::1%eth0', '2001:db8::53', 'not-an-address'] }),
      reach({ closed: ['203.0.113.7', '2001:db8::7', '203.0.113.7'] }),
      reach({
        siteServers: [
          { uid: 1001, address: '127.0.0.1', port: 3306 },
          { uid: 1001, address: '127.0.0.1', port: 3306 },
          { uid: 1002, address: '::1', port: 5432 },
        ],
      }),
    ]) {
      const script = networkRules(table, shape)
      expect({ script, ...check(script) }).toMatchObject({ code: 0, said: '' })
    }
  })

  test('a panel on loopback or link-local is refused by the ranges already, and not listed again', () => {
    const script = networkRules(
      table,
      reach({ closed: ['127.0.0.1', '::1', '169.254.1.1', 'fe80::2', '198.51.100.1'] }),
    )
    expect(script).toContain('ip daddr { 127.0.0.0/8, 169.254.0.0/16, 198.51.100.1 } goto refuse')
    expect(script).toContain('ip6 daddr { ::1, fe80::/10 } goto refuse')
    expect(check(script).code).toBe(0)
  })

  test('holds back only its sites’ users, and lets them reach DNS on the resolvers and the allowed ports of the node', () => {
    const script = networkRules(table, reach())
    expect(script).toContain('elements = { 1001, 1002 }')
    expect(script).toContain('meta skuid @site_uids jump site')
    expect(script).toContain('ip daddr { 127.0.0.53 } meta l4proto { tcp, udp } th dport 53 accept')
    expect(script).toContain('fib daddr type local tcp dport { 80, 443, 3306 } accept')
    // Each site's own servers, by its uid, before the node's addresses are refused.
    const own = networkRules(table, reach({ siteServers: [{ uid: 1002, address: '127.0.0.1', port: 5432 }] }))
    expect(own).toContain('elements = { 1002 . 127.0.0.1 . 5432 }')
    expect(own.indexOf('@site_servers4 accept')).toBeLessThan(own.indexOf('fib daddr type local goto refuse'))
    // Replaced whole in one transaction: made if missing, deleted, written again.
    expect(script.split('\n').slice(0, 3)).toEqual([
      `table inet ${table}`,
      `delete table inet ${table}`,
      `table inet ${table} {`,
    ])
  })
})
