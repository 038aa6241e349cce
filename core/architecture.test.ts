// The layout is the architecture: an import scan keeps core/ free of plugins, plugins on the public contract,
// examples on what an outside author could import, and the kernel free of any plugin's resource names.

import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dir, '..')
const importPattern =
  /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Every TypeScript file under `folder` (pages in `.tsx` too), repo-relative. */
function filesUnder(folder: string): string[] {
  return [...new Bun.Glob(`${folder}/**/*.{ts,tsx}`).scanSync({ cwd: root })]
}

/** The relative imports of `file` (type-only ones too), as repo-relative paths. */
function importsOf(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8')
  const targets: string[] = []
  for (const match of source.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2] ?? ''
    if (specifier.startsWith('.')) targets.push(relative(root, resolve(root, dirname(file), specifier)))
  }
  return targets
}

/** Every relative import of every TypeScript file under `folder`, as repo-relative paths. */
function importsUnder(folder: string): { file: string; target: string }[] {
  return filesUnder(folder).flatMap((file) => importsOf(file).map((target) => ({ file, target })))
}

/** Every file `file` reaches through its imports, itself included. */
function closureOf(file: string): Set<string> {
  const reached = new Set<string>()
  const waiting = [file]
  for (let next = waiting.pop(); next !== undefined; next = waiting.pop()) {
    if (reached.has(next) || !next.endsWith('.ts')) continue
    reached.add(next)
    waiting.push(...importsOf(next))
  }
  return reached
}

/** What runs on a node: every plugin's `node/` folder (the nodes plugin's is the wing itself), and the agent host. */
const nodeCode = () =>
  [
    ...filesUnder('plugins').filter((file) => /^plugins\/[^/]+\/node\//.test(file)),
    ...filesUnder('hosts/agent'),
  ]
    .filter((file) => !isTest(file))
    .sort()

/** The code of a file without its comments, which may name anything. */
function codeOf(file: string): string {
  return readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

const pluginOf = (path: string) => /^plugins\/([^/]+)\//.exec(path)?.[1]
/** Tests, and the fixtures in a plugin's `testing/` folders that only tests import. */
const isTest = (file: string) => file.endsWith('.test.ts') || /^plugins\/[^/]+\/(.+\/)?testing\//.test(file)
/** The testing kit, which tests anywhere outside core/ use (its browser part apart: only browser tests load it). */
const isTestingKit = (target: string) =>
  target === 'hosts/testing/index.ts' || target === 'hosts/testing/browser.ts'
const isPublicPluginPart = (target: string) =>
  /^plugins\/[^/]+\/(contract|index)\.ts$/.test(target) || target === consoleKit
/** Browser code: a plugin's console pages, which only the console's bundler loads. */
const isConsolePages = (file: string) => /^plugins\/[^/]+\/console\//.test(file)
/** The one door of the console's UI kit, for every plugin's console pages. */
const consoleKit = 'plugins/console/kit.ts'

/** Resources the standard plugins own: the kernel knows none of them by name. */
const pluginResources = /(?<![-\w$])(sites?|databases|domains?|diskMB|traffic)(?![-\w$])/

describe('architecture', () => {
  test('nothing in core/ imports from plugins/, hosts/ or examples/', () => {
    const offending = importsUnder('core').filter(({ target }) => /^(plugins|hosts|examples)\//.test(target))
    expect(offending).toEqual([])
  })

  test('no code in core/ names a resource of a plugin (sites, databases, domains, diskMB, traffic)', () => {
    const offending = filesUnder('core')
      .filter((file) => file !== 'core/architecture.test.ts')
      .flatMap((file) => {
        const found = pluginResources.exec(codeOf(file))
        return found ? [`${file}: ${found[0]}`] : []
      })
    expect(offending).toEqual([])
  })

  test('plugins reach the kernel only through core/index.ts, and other plugins only through their contract', () => {
    const offending = importsUnder('plugins').filter(({ file, target }) => {
      if (target.startsWith('core/')) return target !== 'core/index.ts'
      if (isTest(file) && isTestingKit(target)) return false
      if (target.startsWith('hosts/')) return true
      const owner = pluginOf(target)
      if (owner === undefined || owner === pluginOf(file)) return false
      // Production code uses another plugin's contract (console pages the console's kit); a test may mount
      // another plugin whole (its index).
      return !(
        target.endsWith('/contract.ts') ||
        (isConsolePages(file) && target === consoleKit) ||
        (isTest(file) && isPublicPluginPart(target))
      )
    })
    expect(offending).toEqual([])
  })

  test('console pages reach only the kit, their own folder and console contracts; no server code loads them', () => {
    const isBrowserCode = (path: string) =>
      isConsolePages(path) || path === consoleKit || path.startsWith('plugins/console/app/')
    const offending = [...importsUnder('plugins'), ...importsUnder('examples')].filter(({ file, target }) => {
      if (isTest(file)) return false
      if (!/^(plugins|examples)\/[^/]+\/console\//.test(file))
        return !isBrowserCode(file) && isBrowserCode(target)
      const ownFolder = file.split('/').slice(0, 3).join('/')
      return !(
        target.startsWith(`${ownFolder}/`) ||
        target === consoleKit ||
        /^plugins\/[^/]+\/console\/contract\.ts$/.test(target)
      )
    })
    expect(offending).toEqual([])
  })

  test('examples use only what an outside author could import', () => {
    const offending = importsUnder('examples').filter(
      ({ file, target }) =>
        !(
          target === 'core/index.ts' ||
          target === 'hosts/index.ts' ||
          (isTest(file) && isTestingKit(target)) ||
          isPublicPluginPart(target) ||
          target.startsWith('examples/')
        ),
    )
    expect(offending).toEqual([])
  })

  test('hosts reach the kernel through its doors: core/host.ts, core/index.ts for plugins, core/testing for the kit', () => {
    const offending = importsUnder('hosts').filter(
      ({ file, target }) =>
        target.startsWith('core/') &&
        target !== 'core/host.ts' &&
        target !== 'core/index.ts' &&
        !(file.startsWith('hosts/testing/') && target.startsWith('core/testing/')),
    )
    expect(offending).toEqual([])
  })

  test('node code reaches nothing of the panel: no kernel file, no host, no other plugin but the node contract', () => {
    const offending = nodeCode().flatMap((file) =>
      [...closureOf(file)]
        .filter((reached) => {
          if (
            reached.startsWith('core/') ||
            (reached.startsWith('hosts/') && !reached.startsWith('hosts/agent/'))
          )
            return true
          const owner = pluginOf(reached)
          return owner !== undefined && owner !== pluginOf(file) && !reached.startsWith('plugins/nodes/node/')
        })
        .map((reached) => `${file} reaches ${reached}`),
    )
    expect(offending).toEqual([])
  })

  test('the node wing has one door: node modules import only its contract, the agent host only its index', () => {
    const offending = nodeCode().flatMap((file) =>
      importsOf(file)
        .filter((target) => {
          if (file.startsWith('hosts/agent/')) return target !== 'plugins/nodes/node/index.ts'
          if (file.startsWith('plugins/nodes/node/')) return !target.startsWith('plugins/nodes/node/')
          return pluginOf(target) === 'nodes' && target !== 'plugins/nodes/node/contract.ts'
        })
        .map((target) => `${file} imports ${target}`),
    )
    expect(offending).toEqual([])
  })

  test('no import cycles (type-only imports included): every layer reads down', () => {
    const files = ['core', 'plugins', 'hosts', 'examples'].flatMap(filesUnder).filter((file) => !isTest(file))
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const path: string[] = []
    const visit = (file: string) => {
      state.set(file, 'open')
      path.push(file)
      for (const target of importsOf(file)) {
        if (!/\.tsx?$/.test(target)) continue
        if (state.get(target) === 'open')
          cycles.push([...path.slice(path.indexOf(target)), target].join(' → '))
        else if (!state.has(target)) visit(target)
      }
      path.pop()
      state.set(file, 'done')
    }
    for (const file of files) if (!state.has(file)) visit(file)
    expect(cycles).toEqual([])
  })
})
