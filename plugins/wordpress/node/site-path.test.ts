// Site paths of uploaded packages resolved on the node: inside the site, the parent's links resolved and checked,
// the file itself never followed, with a link planted to /etc/passwd, one to /etc and one to another site.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { siteFile } from './site-path.ts'

const folder = realpathSync(mkdtempSync(join(tmpdir(), 'plinth-wp-path-')))
const home = join(folder, 'site_a')
const other = join(folder, 'site_b')
for (const dir of [join(home, 'tmp/sub'), join(home, 'htdocs'), join(other, 'tmp')])
  mkdirSync(dir, { recursive: true })
writeFileSync(join(home, 'tmp/plugin.zip'), 'zip')
writeFileSync(join(other, 'tmp/secret.zip'), 'theirs')
writeFileSync(join(home, 'state.json'), '{}')
symlinkSync('/etc/passwd', join(home, 'tmp/passwd.zip'))
symlinkSync('/etc', join(home, 'tmp/etc'))
symlinkSync(join(other, 'tmp'), join(home, 'tmp/neighbour'))
symlinkSync(join(home, 'tmp'), join(home, 'htdocs/uploads'))
symlinkSync(join(other, 'gone'), join(home, 'tmp/neighbour-gone'))
symlinkSync(join(other, 'tmp/secret.zip'), join(home, 'tmp/neighbour-file'))
symlinkSync('../../site_a/tmp', join(home, 'htdocs/out-and-back'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const refusal = async (path: unknown) => {
  try {
    await siteFile(home, path)
  } catch (error) {
    return (error as { code: string }).code
  }
  return 'none'
}

describe('a package’s site path', () => {
  test('names a regular file inside the site, through a link that stays inside', async () => {
    expect(await siteFile(home, '/tmp/plugin.zip')).toBe(join(home, 'tmp/plugin.zip'))
    expect(await siteFile(home, '/tmp/sub/../plugin.zip')).toBe(join(home, 'tmp/plugin.zip'))
    expect(await siteFile(home, '/htdocs/uploads/plugin.zip')).toBe(join(home, 'tmp/plugin.zip'))
  })

  test('refuses climbing out, links out (to /etc, /etc/passwd, another site), and what is not a file', async () => {
    expect(await refusal('/../../etc/passwd')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/etc/passwd')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/neighbour/secret.zip')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/passwd.zip')).toBe('invalid_package_path')
    expect(await refusal('/tmp/sub')).toBe('invalid_package_path')
    expect(await refusal('/')).toBe('invalid_package_path')
    expect(await refusal('/state.json')).toBe('invalid_package_path')
    expect(await refusal('/tmp/a\u0000b.zip')).toBe('invalid_package_path')
    expect(await refusal('tmp/plugin.zip')).toBe('invalid_package_path')
    expect(await refusal(42)).toBe('invalid_package_path')
    expect(await refusal('/tmp/missing.zip')).toBe('wordpress_package_not_found')
    expect(await refusal('/nowhere/missing.zip')).toBe('wordpress_package_not_found')
  })

  test('a link out is refused the same whether what it names exists or not: no oracle of another site', async () => {
    expect(await refusal('/tmp/neighbour/secret.zip')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/neighbour/missing.zip')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/neighbour-gone/secret.zip')).toBe('package_path_escapes_site')
    expect(await refusal('/tmp/neighbour-file/x.zip')).toBe('package_path_escapes_site')
    // Out, even to come back.
    expect(await refusal('/htdocs/out-and-back/plugin.zip')).toBe('package_path_escapes_site')
  })
})
