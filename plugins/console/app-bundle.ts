// The web app, built with Bun's bundler when first asked for, in memory, from the console's shell and the console
// module of every plugin that contributes one (`console.pages`): `npm start` serves it with nothing to run
// beforehand, and a changed source is a new build at the next start. Asset names carry their content hash, so
// browsers may keep them for ever.

import { isAbsolute, join } from 'node:path'
import type { BunPlugin } from 'bun'

/** One built file: its bytes, a gzip copy when smaller, and its content type. */
export interface BuiltAsset {
  readonly body: Uint8Array<ArrayBuffer>
  readonly gzip: Uint8Array<ArrayBuffer> | null
  readonly type: string
}

/** The built app: assets by file name, and the entry script and style sheets the page loads. */
export interface AppBundle {
  readonly assets: ReadonlyMap<string, BuiltAsset>
  readonly script: string
  readonly styles: readonly string[]
}

const appDir = join(import.meta.dir, 'app')

const typeByExtension: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  png: 'image/png',
}

/** A file as served: its bytes, and a gzip copy when that is smaller. */
export function builtAsset(body: Uint8Array<ArrayBuffer>, type: string): BuiltAsset {
  const compressed = Bun.gzipSync(body, { level: 9 }) as Uint8Array<ArrayBuffer>
  return { body, gzip: compressed.length < body.length ? compressed : null, type }
}

/**
 * The bundler's namespace of the module through which the shell imports every contributed module
 * (`plinth-console:pages`, which app/assets.d.ts declares).
 */
const pagesNamespace = 'plinth-console'

/**
 * Brings the contributed modules into the build, and makes every module share the console's React and query cache
 * library (a plugin outside this tree would otherwise bring its own copy, and its hooks would fail).
 */
function consoleModulesPlugin(modules: readonly string[]): BunPlugin {
  return {
    name: 'plinth-console-modules',
    setup(build) {
      build.onResolve({ filter: /^plinth-console:pages$/ }, () => ({
        path: 'pages',
        namespace: pagesNamespace,
      }))
      build.onLoad({ filter: /.*/, namespace: pagesNamespace }, () => ({
        loader: 'ts',
        contents: [
          ...modules.map((module, index) => `import module${index} from ${JSON.stringify(module)}`),
          `export default [${modules.map((_, index) => `module${index}`).join(', ')}]`,
        ].join('\n'),
      }))
      build.onResolve({ filter: /^(react|react-dom|@tanstack\/react-query)(\/.*)?$/ }, (args) => ({
        path: Bun.resolveSync(args.path, appDir),
      }))
    },
  }
}

/**
 * Builds the app with the console modules at `modules` (absolute paths); throws with the bundler's messages when a
 * source does not compile.
 */
export async function buildApp(modules: readonly string[] = []): Promise<AppBundle> {
  const relative = modules.find((module) => !isAbsolute(module))
  if (relative) throw new Error(`a console module is given by an absolute path, not ${relative}`)
  const result = await Bun.build({
    entrypoints: [join(appDir, 'main.tsx')],
    plugins: [consoleModulesPlugin(modules)],
    target: 'browser',
    minify: true,
    splitting: true,
    sourcemap: 'none',
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
    throw: false,
  })
  if (!result.success) {
    throw new Error(`the console app did not build:\n${result.logs.map((log) => String(log)).join('\n')}`)
  }
  const assets = new Map<string, BuiltAsset>()
  let script: string | null = null
  const styles: string[] = []
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, '')
    const extension = name.split('.').at(-1) ?? ''
    const body = new Uint8Array(await output.arrayBuffer())
    assets.set(name, builtAsset(body, typeByExtension[extension] ?? 'application/octet-stream'))
    if (output.kind === 'entry-point' && extension === 'js') script = name
    if (extension === 'css') styles.push(name)
  }
  if (!script) throw new Error('the console app built no entry script')
  return { assets, script, styles }
}
