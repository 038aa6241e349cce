// The php plugin's client for its console page, typed by its operations in the served document (schema.d.ts,
// written by `bun scripts/write-api-types.ts`).

import { createApi } from '../../console/kit.ts'
import type { components, paths } from './schema.d.ts'

export const api = createApi<paths>()
export type Schemas = components['schemas']
