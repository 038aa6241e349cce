// The console pages section of docs/plugin-authors.md shows the example's files as they are: each block headed by a
// file's path is that file without its opening comment, so the guide's recipe is the one the e2e test runs.

import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')

/** The guide's blocks that name a file of this example, with their code. */
function blocks(): { file: string; code: string }[] {
  const guide = readFileSync(join(root, 'docs', 'plugin-authors.md'), 'utf8')
  return [...guide.matchAll(/^```tsx? (examples\/console-page\/\S+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    file: match[1] ?? '',
    code: match[2] ?? '',
  }))
}

/** A file's code without its opening comment. */
const codeOf = (file: string) =>
  `${readFileSync(join(root, file), 'utf8')
    .replace(/^(\/\/.*\n)+\n?/, '')
    .trimEnd()}\n`

test('every file of the example the guide shows is shown as it is', () => {
  const shown = blocks()
  expect(shown.map((block) => block.file)).toEqual([
    'examples/console-page/index.ts',
    'examples/console-page/console/index.tsx',
    'examples/console-page/console/api.ts',
    'examples/console-page/console/support-page.tsx',
  ])
  for (const block of shown) expect(block.code).toBe(codeOf(block.file))
})
