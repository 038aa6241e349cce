// `bun scripts/measure-declarations.ts`: how much of the standard plugins' routes is declared rather than written by
// hand, and the longest functions of the code base: the before and after figures of issue 27, reproducibly.
//
// Definitions (kept fixed so two runs compare):
// - routes: the operations each standard plugin mounts, read from the plugin itself on a built panel;
// - lines per route: every line of a plugin's non-test files under `routes/`, over its routes; code lines per
//   route the same without blank lines, comments, imports and the routes' OpenAPI text (summaries, descriptions);
// - declared changes and filters: state-changing routes whose definition carries `change`, and lists with a query
//   of filters that declare them (`list.filters`);
// - hand-written audit calls: `audit(x, {`, `writeAudit(` and `.audit(x, {` calls in plugins' non-test files;
// - hand-written filter lines: lines of plugins' non-test files that narrow a query by a query-string filter when
//   it is set (`query.x !== undefined` or `filters.x === undefined` with a `where` on it or the next line);
// - visible selectors: functions and constants of plugins named `visible…`, `findVisible…`, `…In` or `…InView`
//   (a read narrowed to the caller's view, written per plugin);
// - function lengths: from the first to the last line of each function, as Biome's noExcessiveLinesPerFunction
//   finds them (test files left out).

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { createPanel, openSqliteStore, type PluginDefinition } from '../core/host.ts'
import type { RouteDefinition } from '../core/plugin/route.ts'
import { standardPlugins } from '../hosts/standard-plugins.ts'

const root = join(import.meta.dir, '..')

/** Every non-test TypeScript file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) {
      if (name !== 'node_modules') found.push(...sources(path))
    } else if (/\.tsx?$/.test(name) && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

const lineCount = (path: string) => readFileSync(join(root, path), 'utf8').split('\n').length - 1

/**
 * The lines of a file that are code: not blank, not comments, not imports, and not the OpenAPI text of its routes
 * (`summary:` and `description:` lines, and the string lines that continue them).
 */
function codeLineCount(path: string): number {
  let count = 0
  let inImport = false
  for (const line of readFileSync(join(root, path), 'utf8').split('\n')) {
    const text = line.trim()
    if (inImport || text.startsWith('import ')) {
      inImport = !/from\s+['"]/.test(text)
      continue
    }
    if (text === '' || text.startsWith('//') || text.startsWith('/*') || text.startsWith('*')) continue
    if (/^(description|summary):/.test(text) || /^(['"`]).*\1,?$/.test(text)) continue
    count++
  }
  return count
}

/** The routes each standard plugin mounts, captured as the panel asks each for them. */
async function routesByPlugin(): Promise<Map<string, readonly RouteDefinition[]>> {
  const captured = new Map<string, readonly RouteDefinition[]>()
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-measure-'))
  const plugins = standardPlugins({ dataDir, webhookAllowedHosts: [] }).map(
    (plugin): PluginDefinition =>
      plugin.routes
        ? {
            ...plugin,
            routes(context) {
              const routes = plugin.routes?.(context) ?? []
              captured.set(plugin.name, routes)
              return routes
            },
          }
        : plugin,
  )
  const panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins,
    secret: 'measuring-needs-no-real-secret-at-all',
  })
  await panel.close()
  rmSync(dataDir, { recursive: true, force: true })
  return captured
}

/** Matches of `pattern` in the plugins' non-test files (the console's browser app left out). */
function pluginMatches(pattern: RegExp, where: (path: string) => boolean = () => true): number {
  let count = 0
  for (const path of sources('plugins')) {
    if (path.startsWith('plugins/console/app') || !where(path)) continue
    count += readFileSync(join(root, path), 'utf8').match(pattern)?.length ?? 0
  }
  return count
}

/** Lines that narrow a query by a query-string filter. */
function filterLines(): number {
  let count = 0
  for (const path of sources('plugins')) {
    const lines = readFileSync(join(root, path), 'utf8').split('\n')
    lines.forEach((line, index) => {
      if (!/\b(query|filters)\.[A-Za-z]+\s*[!=]==\s*undefined/.test(line)) return
      if (/\.where\(/.test(line) || /\.where\(/.test(lines[index + 1] ?? '')) count++
    })
  }
  return count
}

/** The functions longer than `min` lines, longest first, as Biome finds them. */
function longFunctions(min: number): { lines: number; at: string; name: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-measure-biome-'))
  writeFileSync(
    join(dir, 'biome.json'),
    JSON.stringify({
      root: true,
      files: { ignoreUnknown: true, includes: ['**/*.ts', '**/*.tsx', '!**/*.test.ts', '!**/*.d.ts'] },
      formatter: { enabled: false },
      assist: { enabled: false },
      linter: {
        enabled: true,
        rules: {
          recommended: false,
          complexity: { noExcessiveLinesPerFunction: { level: 'error', options: { maxLines: min } } },
        },
      },
    }),
  )
  const biome = Bun.spawnSync(
    [
      join(root, 'node_modules', '.bin', 'biome'),
      'lint',
      `--config-path=${dir}`,
      '--reporter=json',
      '--max-diagnostics=none',
      ...['core', 'plugins', 'hosts', 'examples', 'scripts', 'bench'],
    ],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  )
  rmSync(dir, { recursive: true, force: true })
  const report = JSON.parse(biome.stdout.toString()) as {
    diagnostics: { location: { path: string; start: { line: number }; end: { line: number } } }[]
  }
  return report.diagnostics
    .map(({ location }) => {
      const text = readFileSync(join(root, location.path), 'utf8').split('\n')[location.start.line - 1] ?? ''
      const name = /(?:function\s+|const\s+|async\s+)?([A-Za-z_$][\w$]*)\s*(?:[=:(<]|$)/.exec(text.trim())
      return {
        lines: location.end.line - location.start.line + 1,
        at: `${location.path}:${location.start.line}`,
        name: name?.[1] ?? '?',
      }
    })
    .sort((a, b) => b.lines - a.lines)
}

const captured = await routesByPlugin()
const rows: string[] = []
let totals = { routes: 0, lines: 0, code: 0, changing: 0, declared: 0, lists: 0, filtered: 0 }
for (const [plugin, routes] of captured) {
  const files = sources(`plugins/${plugin}`).filter((path) => path.startsWith(`plugins/${plugin}/routes/`))
  const lines = files.reduce((sum, path) => sum + lineCount(path), 0)
  const code = files.reduce((sum, path) => sum + codeLineCount(path), 0)
  const changing = routes.filter((route) => route.method !== 'GET' && route.audited !== false)
  const declared = routes.filter((route) => route.change).length
  // Lists that take filters at all (a query of their own): the ones whose filters could be declared.
  const lists = routes.filter((route) => route.list && Object.keys(route.query?.properties ?? {}).length > 0)
  const filtered = lists.filter(
    (route) => Object.keys((route.list as { filters?: object } | undefined)?.filters ?? {}).length > 0,
  )
  totals = {
    routes: totals.routes + routes.length,
    lines: totals.lines + lines,
    code: totals.code + code,
    changing: totals.changing + changing.length,
    declared: totals.declared + declared,
    lists: totals.lists + lists.length,
    filtered: totals.filtered + filtered.length,
  }
  const per = (total: number) => (routes.length ? (total / routes.length).toFixed(1) : '-')
  rows.push(
    `| ${plugin} | ${routes.length} | ${lines} | ${per(lines)} | ${per(code)} | ${declared}/${changing.length} | ${filtered.length}/${lists.length} |`,
  )
}

const inRoutes = (path: string) => path.includes('/routes/')
const auditCall = /\b(?:writeAudit\(|audit\(\s*[\w.]+\s*,\s*\{)/g
const visibleSelector =
  /\b(?:function|const)\s+(?:(?:find)?[vV]isible[A-Z]?\w*|\w+(?:In|InView))\b\s*(?:=\s*(?:async\s*)?\(|\(|<)/g
const longest = longFunctions(60)
const compileRoute = longest.find((fn) => fn.name === 'compileRoute')

console.log(
  '| plugin | routes | lines in routes/ | lines per route | code lines per route | declared changes | declared filters |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const row of rows) console.log(row)
const all = (total: number) => (total / totals.routes).toFixed(1)
console.log(
  `| all | ${totals.routes} | ${totals.lines} | ${all(totals.lines)} | ${all(totals.code)} | ${totals.declared}/${totals.changing} | ${totals.filtered}/${totals.lists} |`,
)
console.log('')
console.log(
  `hand-written audit calls: ${pluginMatches(auditCall)} (${pluginMatches(auditCall, inRoutes)} in routes/)`,
)
console.log(`hand-written filter lines: ${filterLines()}`)
console.log(`visible selectors: ${pluginMatches(visibleSelector, (path) => !path.includes('/node/'))}`)
console.log(`compileRoute: ${compileRoute ? `${compileRoute.lines} lines` : 'under 60 lines'}`)
console.log(`functions over 80 lines: ${longest.filter((fn) => fn.lines > 80).length}`)
console.log('longest functions:')
for (const fn of longest.slice(0, 15)) console.log(`  ${fn.lines}\t${fn.name}\t${relative('.', fn.at)}`)
