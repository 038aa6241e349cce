// The web app, built from its sources with Bun's bundler when first asked for, in memory: `npm start` serves it
// with nothing to run beforehand, and a changed source is a new build at the next start. Asset names carry their
// content hash, so browsers may keep them for ever.

import { join } from 'node:path'

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

/** Builds the app; throws with the bundler's messages when a source does not compile. */
export async function buildApp(): Promise<AppBundle> {
  const result = await Bun.build({
    entrypoints: [join(appDir, 'main.tsx')],
    root: appDir,
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
