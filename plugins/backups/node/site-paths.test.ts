// The paths a restore is given: absolute within the site, no `..`, no NUL nor control character, and only under what
// a restore replaces; kept paths turned into rsync rules that match them alone.

import { describe, expect, test } from 'bun:test'
import { checkedSitePath, restorablePath, rsyncLiteral } from './site-paths.ts'

describe('a restore’s paths', () => {
  test('are normalised, and refused when relative, climbing, or holding a NUL or control character', () => {
    expect(checkedSitePath('/htdocs//wp-content/./uploads/')).toBe('/htdocs/wp-content/uploads')
    for (const bad of ['htdocs', '/htdocs/../../etc', '/htdocs/a\0b', '/htdocs/a\nb', '', 42])
      expect(() => checkedSitePath(bad)).toThrow()
  })

  test('are only what a restore replaces: the document root and what is in it', () => {
    expect(restorablePath('/htdocs')).toBe('/htdocs')
    expect(restorablePath('/htdocs/index.php')).toBe('/htdocs/index.php')
    for (const bad of ['/', '/logs', '/tmp/x', '/state.json', '/htdocsx'])
      expect(() => restorablePath(bad)).toThrow()
  })

  test('kept as rsync rules, match themselves alone, wildcards escaped', () => {
    expect(rsyncLiteral('wp-config.php')).toBe('/wp-config.php')
    expect(rsyncLiteral('a*b/[c]?.txt')).toBe('/a\\*b/\\[c]\\?.txt')
  })
})
