// The names the runtime gives sites' users and sockets, and the data directories it refuses.

import { describe, expect, test } from 'bun:test'
import { runtimeLayout, siteLayout, unixUserName } from './layout.ts'

describe('unixUserName', () => {
  test('is s_, the handle (at most 20 characters) and a hash of the id: at most 32 characters, the same on every call', () => {
    const name = unixUserName({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1', handle: 'my-shop' })
    expect(name).toMatch(/^s_my-shop_[a-z2-7]{8}$/)
    expect(unixUserName({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1', handle: 'my-shop' })).toBe(name)
    const long = unixUserName({ id: 'site_1', handle: 'a'.repeat(63) })
    expect(long.length).toBeLessThanOrEqual(32)
    expect(long).toMatch(/^[a-z_][a-z0-9_-]*$/)
  })

  test('keeps apart sites whose handles begin alike, or whose ids differ in case only', () => {
    const names = [
      unixUserName({ id: 'site_A', handle: 'a'.repeat(30) }),
      unixUserName({ id: 'site_B', handle: 'a'.repeat(31) }),
      unixUserName({ id: 'site_a', handle: 'a'.repeat(30) }),
    ]
    expect(new Set(names).size).toBe(3)
  })
})

describe('runtimeLayout', () => {
  test('refuses a data directory whose pools’ sockets could not be named (107 bytes at most)', () => {
    expect(() => runtimeLayout(`/srv/${'x'.repeat(80)}`)).toThrow(/107 bytes/)
    expect(() => runtimeLayout('/srv/plinth')).not.toThrow()
  })

  test('refuses what nginx or PHP-FPM would misread in a path, and keeps every site in its own folder', () => {
    for (const bad of ['/srv/a;b', '/srv/a:b', '/srv/$x', '/srv/"q"'])
      expect(() => runtimeLayout(bad)).toThrow(/cannot use/)
    const layout = runtimeLayout('/srv/plinth')
    const site = siteLayout(layout, {
      id: 'site_1',
      handle: 'shop',
      domain: 'shop.example.com',
      type: 'static',
      customerId: 'cus_1',
      diskMB: null,
    })
    expect(site.home).toBe('/srv/plinth/sites/site_1')
    expect(site.serverBlock).toBe('/srv/plinth/nginx/sites/site_1.conf')
    expect(site.pool).toBe('/srv/plinth/php/sites/site_1/php-fpm.conf')
    expect(site.socket).toBe(`/srv/plinth/php/run/${site.user}/php.sock`)
  })
})
