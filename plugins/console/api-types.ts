// The console's API types, generated from the document a panel serves at `/api/docs` by an ecosystem generator
// (openapi-typescript), never imported from the server's code: the app is a client like any other. One file per
// console module: the console's own (the kernel's operations, and those of the customers and brands its pickers
// read) in app/api/schema.d.ts, and each plugin's (its operations: those tagged with its name) in the
// `schema.d.ts` beside its console module. `bun scripts/write-api-types.ts` writes them; a test fails on drift.

import { dirname, join, relative } from 'node:path'
import openapiTS, { type OpenAPI3 } from 'openapi-typescript'
import type { ServiceRef } from '../../core/index.ts'
import { consoleModules } from './contract.ts'

/** Where the console's own types live, inside the app's sources. */
export const apiTypesPath = join(import.meta.dir, 'app', 'api', 'schema.d.ts')

/** The plugins whose operations the kit's pickers and names read (customers, brands), besides the kernel's. */
const kitTags = ['customers', 'brands']

/** A types file: where it goes and the OpenAPI tags whose operations it types. */
export interface ApiTypesFile {
  readonly path: string
  readonly tags: readonly string[]
}

type Document = Readonly<Record<string, unknown>>
type Operation = { readonly tags?: readonly string[] }

/** What the generator reads of a panel (as hosts have it): its document, its plugins and their services. */
export interface ServedPanel {
  readonly document: Readonly<Record<string, unknown>>
  readonly plugins: readonly { readonly name: string }[]
  service<T>(ref: ServiceRef<T>): T | null
}

/** The files of an installation: the console's own, and one beside each console module its plugins add. */
export function apiTypesFiles(panel: ServedPanel): ApiTypesFile[] {
  const plugins = new Set(panel.plugins.map((plugin) => plugin.name))
  const tags = ((panel.document.tags ?? []) as readonly { readonly name: string }[]).map((tag) => tag.name)
  const own = { path: apiTypesPath, tags: [...tags.filter((tag) => !plugins.has(tag)), ...kitTags] }
  const modules = panel.service(consoleModules)?.list() ?? []
  return [
    own,
    ...modules.map((entry) => ({ path: join(dirname(entry.module), 'schema.d.ts'), tags: [entry.plugin] })),
  ]
}

/** `document` with only the operations tagged with one of `tags`, and only the components they refer to. */
export function operationsOf(document: Document, tags: readonly string[]): Document {
  const wanted = new Set(tags)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const kept = Object.entries(item).filter(
      ([, operation]) =>
        typeof operation === 'object' && (operation as Operation).tags?.some((tag) => wanted.has(tag)),
    )
    if (kept.length > 0) paths[path] = Object.fromEntries(kept)
  }
  // The document's event payloads (`webhooks`) are no operations a page calls.
  const { webhooks: _events, ...rest } = document
  return {
    ...rest,
    tags: ((document.tags ?? []) as readonly { readonly name: string }[]).filter((tag) =>
      wanted.has(tag.name),
    ),
    paths,
    components: referencedComponents(document, paths),
  }
}

/** The components `from` refers to, and those they refer to in turn (the security schemes always). */
function referencedComponents(document: Document, from: unknown): Record<string, Record<string, unknown>> {
  const all = document.components as Record<string, Record<string, unknown>>
  const found: Record<string, Record<string, unknown>> = { securitySchemes: all.securitySchemes ?? {} }
  const seen = new Set<string>()
  const pending: unknown[] = [from]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    const ref = (value as { $ref?: unknown }).$ref
    if (typeof ref === 'string' && ref.startsWith('#/components/') && !seen.has(ref)) {
      seen.add(ref)
      const [kind = '', name = ''] = ref.slice('#/components/'.length).split('/')
      const target = all[kind]?.[name]
      if (target !== undefined) {
        found[kind] = { ...found[kind], [name]: target }
        pending.push(target)
      }
    }
    pending.push(...Object.values(value))
  }
  return found
}

const headerOf = (
  file: ApiTypesFile,
) => `// Generated from the panel's OpenAPI document by \`bun scripts/write-api-types.ts\`; do not edit.
// The operations tagged ${file.tags.map((tag) => `\`${tag}\``).join(', ')}. plugins/console/api-types.test.ts fails when
// this file and the served document disagree.

`

/** The contents of `file` for `document`. */
export async function apiTypesOf(document: Document, file: ApiTypesFile): Promise<string> {
  const types = await openapiTS(structuredClone(operationsOf(document, file.tags)) as unknown as OpenAPI3, {
    silent: true,
    // The document refers to nothing outside itself: nothing is to be fetched.
    fetch: () => Promise.reject(new Error('the generator tried to fetch a reference')),
  })
  return `${headerOf(file)}${types}`
}

/** A path for messages: relative to the working directory. */
export const shown = (path: string) => relative(process.cwd(), path)
