// Path parameters that are ids, declared by prefix (`{ id: 'site' }`) and turned into the schema the kernel checks.

import { Kind, type TObject, Type as t } from '@sinclair/typebox'
import { idPattern } from '../ids/ids.ts'

/**
 * Path parameters that are ids, by name → id prefix: `{ id: 'site' }` for `/sites/:id`. The kernel makes the
 * schema (`^site_` and a ULID; anything else is 404 before the handler runs) and documents it.
 */
export type IdParams = Readonly<Record<string, string>>

/** Whether `params` is already a schema rather than ids by prefix. */
function isSchema(params: TObject | IdParams): params is TObject {
  return Kind in params
}

/**
 * The schema of a route's path parameters: itself when it is one, else one id pattern per parameter (a malformed
 * id is 404 before any lookup).
 * @example idParamsSchema({ siteId: 'site', id: 'cron' })
 */
export function idParamsSchema(params: TObject | IdParams): TObject {
  if (isSchema(params)) return params
  return t.Object(
    Object.fromEntries(
      Object.entries(params).map(([name, prefix]) => {
        if (!/^[a-z][a-z0-9]*$/.test(prefix))
          throw new Error(
            `Path parameter ${name}: id prefix "${prefix}" must be lower-case letters and digits`,
          )
        return [name, t.String({ pattern: idPattern(prefix), description: `Identifier, \`${prefix}_…\`.` })]
      }),
    ),
  )
}
