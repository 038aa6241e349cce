// The node's own check of a site's document root, PHP switch, version and settings: whatever the panel sent, nothing
// reaches nginx's or PHP-FPM's files unless it has the shape the node renders safely.

import { describe, expect, test } from 'bun:test'
import type { SiteServing, SiteSpec } from '../contract.ts'
import { phpSettingLines } from './php-settings.ts'
import { documentLines, documentRoot } from './site-serving.ts'
import { checkSiteSpec } from './site-spec.ts'

const site = (serving: unknown): SiteSpec => ({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  handle: 'shop',
  domain: 'shop.example.com',
  type: 'php',
  customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
  diskMB: null,
  serving: serving as SiteServing,
})

describe('a site’s serving, as the node checks it', () => {
  test('takes a document root, PHP on or off, a version and allowlisted settings of their shapes', () => {
    const good = site({
      root: 'web/public',
      php: true,
      phpVersion: '8.2',
      phpSettings: { memory_limit: '256M', max_input_time: '-1', display_errors: 'off', post_max_size: '1G' },
    })
    expect(() => checkSiteSpec(good)).not.toThrow()
    expect(phpSettingLines(good)).toEqual([
      'php_admin_value[upload_max_filesize] = 64M',
      'php_admin_value[post_max_size] = 1G',
      'php_admin_value[memory_limit] = 256M',
      'php_admin_value[max_input_time] = -1',
      'php_admin_flag[display_errors] = off',
    ])
    expect(documentRoot('/d/sites/x/htdocs', good)).toBe('/d/sites/x/htdocs/web/public')
    expect(documentLines(good, '/h', true)).toEqual([
      'root "/h/web/public";',
      'index index.php index.html;',
      'client_max_body_size 1G;',
    ])
    // Without PHP, index.php is never an index.
    expect(documentLines(site({ php: false }), '/h', false)).toEqual([
      'root "/h";',
      'index index.html index.htm;',
    ])
  })

  const refused: [string, unknown][] = [
    ['a root going up', { root: '../x' }],
    ['an absolute root', { root: '/etc' }],
    ['a hidden folder', { root: 'public/.git' }],
    ['a quote in the root', { root: 'a"b' }],
    ['a newline in the root', { root: 'a\nroot /etc;' }],
    ['a dollar in the root', { root: '$document_root' }],
    ['an empty segment', { root: 'a//b' }],
    ['unicode in the root', { root: 'pübl' }],
    ['an overlong root', { root: 'a'.repeat(65) }],
    ['a root too deep', { root: 'a/b/c/d/e/f/g/h/i' }],
    ['php neither on nor off', { php: 'yes' }],
    ['a version with a quote', { phpVersion: '8.2"' }],
    ['a version that is a path', { phpVersion: '../../bin/sh' }],
    ['a setting off the allowlist', { phpSettings: { auto_prepend_file: '/etc/passwd' } }],
    ['an inherited name', { phpSettings: { ['__proto__']: '1' } }],
    ['a newline in a value', { phpSettings: { memory_limit: '1G\nphp_admin_value[open_basedir] = /' } }],
    ['a semicolon in a value', { phpSettings: { memory_limit: '1G;' } }],
    ['a NUL in a value', { phpSettings: { memory_limit: '1G\u0000' } }],
    ['a brace in a value', { phpSettings: { max_input_vars: '1}' } }],
    ['a flag that is not on or off', { phpSettings: { display_errors: 'stderr' } }],
    ['a number that is not one', { phpSettings: { max_execution_time: '30s' } }],
    ['an overlong number', { phpSettings: { max_input_vars: '123456789' } }],
    ['settings that are not an object', { phpSettings: ['memory_limit'] }],
  ]
  for (const [what, serving] of refused)
    test(`refuses ${what}`, () => {
      expect(() => checkSiteSpec(site(serving))).toThrow(
        expect.objectContaining({ code: 'unsafe_site_spec' }),
      )
    })
})
