// docs/plugin-authors.md works as written: its TypeScript blocks, in order, are one program that type-checks and runs
// (a plugin with its routes, then a test of it through the kit); a block headed by an example's file is that file.

import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bunBin, repoRoot } from './testing/host-process.ts'

/** Where the program is written: an example folder, so its imports are the ones the page shows. */
const folder = join(repoRoot, 'examples', `notes-doc-${process.pid}`)
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The page's TypeScript blocks, in order. */
function snippets(): string[] {
  const page = readFileSync(join(repoRoot, 'docs', 'plugin-authors.md'), 'utf8')
  return [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '')
}

/** The page's blocks headed by a file of `examples/`, with their code. */
function exampleBlocks(): { file: string; code: string }[] {
  const page = readFileSync(join(repoRoot, 'docs', 'plugin-authors.md'), 'utf8')
  return [...page.matchAll(/^```tsx? (examples\/\S+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    file: match[1] ?? '',
    code: match[2] ?? '',
  }))
}

test('every block headed by an example’s file is that file as it is, but for its opening comment', () => {
  const blocks = exampleBlocks()
  expect(blocks.map((block) => block.file)).toContain('examples/dns-zones/console/index.tsx')
  for (const { file, code } of blocks) {
    const text = readFileSync(join(repoRoot, file), 'utf8')
    expect(code).toBe(`${text.replace(/^(\/\/.*\n)+\n?/, '').trimEnd()}\n`)
  }
})

test('the TypeScript blocks of docs/plugin-authors.md type-check and run as one program', async () => {
  const blocks = snippets()
  expect(blocks.length).toBeGreaterThanOrEqual(6)
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'index.ts'), blocks.join('\n'))
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.json',
      include: ['index.ts'],
      compilerOptions: { noEmit: true },
    }),
  )
  const typecheck = Bun.spawn([join(repoRoot, 'node_modules', '.bin', 'tsc'), '-p', folder], {
    cwd: repoRoot,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const compiled = await new Response(typecheck.stdout).text()
  expect(compiled).toBe('')
  expect(await typecheck.exited).toBe(0)

  const run = Bun.spawn([bunBin, join(folder, 'index.ts')], { cwd: repoRoot, stdout: 'pipe', stderr: 'pipe' })
  const [stderr, exitCode] = await Promise.all([new Response(run.stderr).text(), run.exited])
  expect(stderr).toBe('')
  expect(exitCode).toBe(0)
}, 120_000)
