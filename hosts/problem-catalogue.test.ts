// The generated docs: docs/problem-codes.md and the roles table of docs/tenancy.md match the code, and every code is
// pinned by some test.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fieldCodes } from '../core/host.ts'
import { problemCatalogueMarkdown, rolesTableMarkdown } from './problem-catalogue.ts'
import { createTestPanel, type TestPanel } from './testing/index.ts'

const root = join(import.meta.dir, '..')
let tp: TestPanel

beforeAll(async () => {
  tp = await createTestPanel()
})
afterAll(() => tp.panel.close())

describe('the problem catalogue', () => {
  test('docs/problem-codes.md is what `npm run docs:generate` writes', () => {
    expect(readFileSync(join(root, 'docs', 'problem-codes.md'), 'utf8')).toBe(
      problemCatalogueMarkdown(tp.panel),
    )
  })

  test('the roles table of docs/tenancy.md is what `npm run docs:generate` writes', () => {
    expect(readFileSync(join(root, 'docs', 'tenancy.md'), 'utf8')).toContain(rolesTableMarkdown(tp.panel))
  })

  test('every code is asserted by at least one test', () => {
    const tests = [...new Bun.Glob('{core,plugins,hosts,examples}/**/*.test.ts').scanSync({ cwd: root })]
      .filter((file) => !file.endsWith('problem-catalogue.test.ts'))
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n')
    const codes = [...tp.panel.catalogue.problems.map((p) => p.code), ...Object.keys(fieldCodes)]
    const unpinned = codes.filter((code) => !tests.includes(`'${code}'`))
    expect(unpinned).toEqual([])
  })
})
