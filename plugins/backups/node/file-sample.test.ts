// The listing a backup samples files from: a uniform sample of bounded size, never the runtime's files, the site's
// temporary files, a restore's folder, or anything through a link.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { siteFiles } from './file-sample.ts'

const home = mkdtempSync(join(tmpdir(), 'plinth-file-sample-'))
afterAll(() => rmSync(home, { recursive: true, force: true }))
const never = new AbortController().signal

mkdirSync(join(home, 'htdocs', 'deep', 'er'), { recursive: true })
for (let i = 0; i < 600; i++)
  writeFileSync(join(home, 'htdocs', i % 2 ? 'deep' : 'deep/er', `f${i}.txt`), `${i}`)
mkdirSync(join(home, 'tmp'))
writeFileSync(join(home, 'tmp', 'session'), 'x')
writeFileSync(join(home, 'state.json'), '{}')
mkdirSync(join(home, '.plinth-restore-run1'))
writeFileSync(join(home, '.plinth-restore-run1', 'half.txt'), 'x')
symlinkSync('/etc', join(home, 'htdocs', 'etc'))

describe('a site’s files for the sample', () => {
  test('at most as many as asked, each once, a fair share of the whole tree', async () => {
    const { files } = await siteFiles(home, never, 100)
    expect(files).toHaveLength(100)
    expect(new Set(files.map((file) => file.sitePath)).size).toBe(100)
    for (const file of files) expect(file.sitePath).toMatch(/^\/htdocs\/deep\/(er\/)?f\d+\.txt$/)
    // Both folders are drawn from (300 files each): not only the first ones walked.
    expect(files.filter((file) => file.sitePath.includes('/er/')).length).toBeGreaterThan(20)
    expect(files.filter((file) => !file.sitePath.includes('/er/')).length).toBeGreaterThan(20)
  })

  test('every file when there are fewer, never the runtime’s, the temporary ones, a restore’s, or through a link', async () => {
    const { files } = await siteFiles(home, never, 10_000)
    expect(files).toHaveLength(600)
    expect(files.some((file) => /tmp|state\.json|plinth|etc/.test(file.sitePath))).toBe(false)
  })
})
