// The app's generated API types are those of the served document: a route, field or problem changed in a plugin
// without `bun scripts/write-api-types.ts` fails here, before the app compiles against a stale API.

import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { servedDocument } from '../../scripts/served-document.ts'
import { apiTypesOf, apiTypesPath } from './api-types.ts'

test('the committed API types match the served OpenAPI document', async () => {
  const expected = await apiTypesOf(await servedDocument())
  const committed = readFileSync(apiTypesPath, 'utf8')
  if (committed !== expected) {
    throw new Error(
      `${apiTypesPath} is out of date with /api/docs: run \`node_modules/.bin/bun scripts/write-api-types.ts\` and commit it`,
    )
  }
  expect(committed).toBe(expected)
})
