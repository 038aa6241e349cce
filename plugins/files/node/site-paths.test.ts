// Site paths: what the API's paths may be, and where they lead on the node, with links planted the way an attacker
// would (to /etc/passwd, to /etc, to another site, through a parent) refused before anything is touched.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileRefusal, type FileRefusalCode } from './file-refusal.ts'
import { locate, sitePathOf } from './site-paths.ts'

let sites: string
let home: string
let other: string

beforeAll(() => {
  sites = realpathSync(mkdtempSync(join(tmpdir(), 'plinth-site-paths-')))
  home = join(sites, 'site_a')
  other = join(sites, 'site_b')
  for (const dir of [join(home, 'htdocs', 'wp-content'), join(other, 'htdocs')])
    mkdirSync(dir, { recursive: true })
  writeFileSync(join(home, 'htdocs', 'index.php'), '<?php echo 1;')
  writeFileSync(join(other, 'htdocs', 'wp-config.php'), "define('DB_PASSWORD', 'theirs');")
  symlinkSync('/etc/passwd', join(home, 'htdocs', 'passwd'))
  symlinkSync('/etc', join(home, 'htdocs', 'etc'))
  symlinkSync(join(other, 'htdocs'), join(home, 'htdocs', 'neighbour'))
  symlinkSync('wp-content', join(home, 'htdocs', 'content'))
  symlinkSync(join(other, 'htdocs', 'missing'), join(home, 'htdocs', 'neighbour-missing'))
  symlinkSync(join(other, 'htdocs', 'wp-config.php'), join(home, 'htdocs', 'neighbour-file'))
  symlinkSync('../../site_a/htdocs/wp-content', join(home, 'htdocs', 'out-and-back'))
  symlinkSync(join(home, 'htdocs', 'wp-content'), join(home, 'htdocs', 'absolute-inside'))
  symlinkSync('loop-b', join(home, 'htdocs', 'loop-a'))
  symlinkSync('loop-a', join(home, 'htdocs', 'loop-b'))
})
afterAll(() => rmSync(sites, { recursive: true, force: true }))

function refusedWith(code: FileRefusalCode, work: () => unknown): Promise<void> {
  return Promise.resolve()
    .then(work)
    .then(
      () => {
        throw new Error(`expected the refusal ${code}`)
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(FileRefusal)
        expect((error as FileRefusal).code).toBe(code)
        // The node's own paths are never named in the message.
        expect((error as Error).message).not.toContain(sites)
      },
    )
}

describe('a site path', () => {
  test('is absolute, normalised, and `..` inside the site is taken', () => {
    expect(sitePathOf('/')).toEqual({ path: '/', segments: [] })
    expect(sitePathOf('//htdocs/./wp-content//')).toEqual({
      path: '/htdocs/wp-content',
      segments: ['htdocs', 'wp-content'],
    })
    expect(sitePathOf('/htdocs/a/../index.php').path).toBe('/htdocs/index.php')
  })

  test('climbing out, NUL bytes, control characters, relative and huge paths are refused', async () => {
    await refusedWith('path_escapes_site', () => sitePathOf('/..'))
    await refusedWith('path_escapes_site', () => sitePathOf('/htdocs/../../site_b/htdocs'))
    await refusedWith('invalid_path', () => sitePathOf('/htdocs/index.php\u0000.txt'))
    await refusedWith('invalid_path', () => sitePathOf('/htdocs/\nindex.php'))
    await refusedWith('invalid_path', () => sitePathOf('htdocs/index.php'))
    await refusedWith('invalid_path', () => sitePathOf(''))
    await refusedWith('invalid_path', () => sitePathOf(`/${'a'.repeat(5000)}`))
  })

  test('the runtime’s own state file is not the site’s', async () => {
    await refusedWith('path_reserved', () => sitePathOf('/state.json'))
    expect(sitePathOf('/htdocs/state.json').path).toBe('/htdocs/state.json')
  })

  test('a service’s passing folder at the top of the home (a restore’s) is not the site’s either', async () => {
    await refusedWith('path_reserved', () => sitePathOf('/.plinth-restore-run1'))
    await refusedWith('path_reserved', () => sitePathOf('/.plinth-room'))
    expect(sitePathOf('/htdocs/.plinth-restore-run1').path).toBe('/htdocs/.plinth-restore-run1')
  })
})

describe('locating a site path', () => {
  test('leads inside the site, the last component not followed', async () => {
    expect(await locate(home, sitePathOf('/htdocs/index.php'))).toMatchObject({
      absolute: join(home, 'htdocs', 'index.php'),
      parent: join(home, 'htdocs'),
      name: 'index.php',
    })
    // A link as the last component is the link itself: operations act on it, not on /etc/passwd.
    expect((await locate(home, sitePathOf('/htdocs/passwd'))).absolute).toBe(join(home, 'htdocs', 'passwd'))
    expect((await locate(home, sitePathOf('/'))).absolute).toBe(home)
  })

  test('a link inside the site may be passed through', async () => {
    expect((await locate(home, sitePathOf('/htdocs/content/new.txt'))).absolute).toBe(
      join(home, 'htdocs', 'wp-content', 'new.txt'),
    )
  })

  test('through a link to /etc or to another site is refused', async () => {
    await refusedWith('path_escapes_site', () => locate(home, sitePathOf('/htdocs/etc/passwd')))
    await refusedWith('path_escapes_site', () => locate(home, sitePathOf('/htdocs/etc/shadow')))
    await refusedWith('path_escapes_site', () => locate(home, sitePathOf('/htdocs/neighbour/wp-config.php')))
  })

  test('a link out is refused the same whether what it names exists, is a file or is missing', async () => {
    for (const path of [
      '/htdocs/neighbour/x',
      '/htdocs/neighbour-missing/x',
      '/htdocs/neighbour-file/x',
      '/htdocs/neighbour/wp-config.php/x',
    ])
      await refusedWith('path_escapes_site', () => locate(home, sitePathOf(path)))
  })

  test('a link that climbs out to come back is out; an absolute one to the home is in; a loop ends', async () => {
    await refusedWith('path_escapes_site', () => locate(home, sitePathOf('/htdocs/out-and-back/x')))
    expect((await locate(home, sitePathOf('/htdocs/absolute-inside/x'))).absolute).toBe(
      join(home, 'htdocs', 'wp-content', 'x'),
    )
    await refusedWith('link_not_followed', () => locate(home, sitePathOf('/htdocs/loop-a/x')))
  })

  test('a missing parent, or a parent that is a file, is said so', async () => {
    await refusedWith('file_not_found', () => locate(home, sitePathOf('/htdocs/nope/file.txt')))
    await refusedWith('not_a_directory', () => locate(home, sitePathOf('/htdocs/index.php/file.txt')))
  })
})
