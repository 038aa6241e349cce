// The codes catalogue: docs/problem-codes.md matches the code, and every code is pinned by some test.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fieldCodes, tokenRequestCodes } from '../core/index.ts'
import { problemCatalogueMarkdown } from './problem-catalogue.ts'
import { createTestPanel, type TestPanel } from './testing/index.ts'

const root = join(import.meta.dir, '..')
let tp: TestPanel

beforeAll(async () => {
  tp = await createTestPanel()
})
afterAll(() => tp.panel.close())

describe('the problem catalogue', () => {
  test('docs/problem-codes.md is what `npm run docs:codes` writes', () => {
    expect(readFileSync(join(root, 'docs', 'problem-codes.md'), 'utf8')).toBe(
      problemCatalogueMarkdown(tp.panel),
    )
  })

  test('every code is asserted by at least one test', () => {
    const tests = [...new Bun.Glob('{core,plugins,hosts,examples}/**/*.test.ts').scanSync({ cwd: root })]
      .filter((file) => !file.endsWith('problem-catalogue.test.ts'))
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n')
    const codes = [
      ...tp.panel.problems.map((p) => p.code),
      ...Object.keys(fieldCodes),
      ...Object.keys(tokenRequestCodes),
    ]
    const unpinned = codes.filter((code) => !tests.includes(`'${code}'`))
    expect(unpinned).toEqual([])
  })
})
