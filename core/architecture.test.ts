// The layout is the architecture: an import scan keeps core/ free of plugins and plugins on public contracts.

import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dir, '..')
const importPattern =
  /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Every relative import of every TypeScript file under `folder`, as repo-relative paths. */
function importsUnder(folder: string): { file: string; target: string }[] {
  const found: { file: string; target: string }[] = []
  for (const file of new Bun.Glob(`${folder}/**/*.ts`).scanSync({ cwd: root })) {
    const source = readFileSync(join(root, file), 'utf8')
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2] ?? ''
      if (!specifier.startsWith('.')) continue
      found.push({ file, target: relative(root, resolve(root, dirname(file), specifier)) })
    }
  }
  return found
}

const pluginOf = (path: string) => /^plugins\/([^/]+)\//.exec(path)?.[1]
const isPublicKernel = (target: string, file: string) =>
  target === 'core/index.ts' || (file.endsWith('.test.ts') && target.startsWith('core/testing/'))
const isPublicPluginPart = (target: string) => /^plugins\/[^/]+\/(contract|index)\.ts$/.test(target)

describe('architecture', () => {
  test('nothing in core/ imports from plugins/, hosts/ or examples/', () => {
    const offending = importsUnder('core').filter(({ target }) => /^(plugins|hosts|examples)\//.test(target))
    expect(offending).toEqual([])
  })

  test('plugins reach the kernel only through core/index.ts, and other plugins only through their contract', () => {
    const offending = importsUnder('plugins').filter(({ file, target }) => {
      if (target.startsWith('core/')) return !isPublicKernel(target, file)
      const owner = pluginOf(target)
      if (owner === undefined || owner === pluginOf(file)) return false
      // Production code uses another plugin's contract; a test may mount another plugin whole (its index).
      return !(target.endsWith('/contract.ts') || (file.endsWith('.test.ts') && isPublicPluginPart(target)))
    })
    expect(offending).toEqual([])
  })

  test('examples use only what an outside author could import', () => {
    const offending = importsUnder('examples').filter(
      ({ file, target }) =>
        !(isPublicKernel(target, file) || isPublicPluginPart(target) || target.startsWith('examples/')),
    )
    expect(offending).toEqual([])
  })
})
