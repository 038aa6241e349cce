// The support plugin's client for its console page, typed by its operations in the served document (schema.d.ts,
// written by `bun scripts/write-api-types.ts examples/console-page/plinth.config.ts`).

import { createApi } from '../../../plugins/console/kit.ts'
import type { paths } from './schema.d.ts'

export const api = createApi<paths>()
