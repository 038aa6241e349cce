// Regenerates the console's API types (plugins/console/app/api/schema.d.ts) from the served OpenAPI document.

import { apiTypesOf, apiTypesPath } from '../plugins/console/api-types.ts'
import { servedDocument } from './served-document.ts'

await Bun.write(apiTypesPath, await apiTypesOf(await servedDocument()))
console.log(`wrote ${apiTypesPath}`)
