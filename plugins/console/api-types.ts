// The app's API types, generated from the document the standard panel serves at `/api/docs` by an ecosystem
// generator (openapi-typescript), never imported from the server's code: the app is a client like any other.
// `bun scripts/write-api-types.ts` writes them from a standard panel's document; a test fails when the committed
// file drifts from it.

import { join } from 'node:path'
import openapiTS, { type OpenAPI3 } from 'openapi-typescript'

/** Where the generated types live, inside the app's sources. */
export const apiTypesPath = join(import.meta.dir, 'app', 'api', 'schema.d.ts')

const header = `// Generated from the panel's OpenAPI document by \`bun scripts/write-api-types.ts\`; do not edit.
// plugins/console/api-types.test.ts fails when this file and the served document disagree.

`

/** The types file for `document`. */
export async function apiTypesOf(document: Record<string, unknown>): Promise<string> {
  const types = await openapiTS(structuredClone(document) as unknown as OpenAPI3, {
    silent: true,
    // The document refers to nothing outside itself: nothing is to be fetched.
    fetch: () => Promise.reject(new Error('the generator tried to fetch a reference')),
  })
  return `${header}${types}`
}
