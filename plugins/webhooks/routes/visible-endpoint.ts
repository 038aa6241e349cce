// What every endpoint route starts with: the endpoint's id in the path, and the endpoint if the caller may see it.

import { type Db, idPattern, kernelProblems, Problem, type TenantView, t } from '../../../core/index.ts'
import type { WebhookEndpointsTable } from '../migrations.ts'
import { findVisibleEndpoint } from '../repository.ts'

/** Path parameters of one endpoint. */
export const WebhookParams = t.Object({
  id: t.String({ pattern: idPattern('whk'), description: 'Webhook endpoint id, `whk_…`.' }),
})

/** The endpoint if the caller may see it, read through `from` (a transaction or the store); 404 otherwise, like a missing one. */
export async function visibleEndpoint(
  from: Db,
  view: TenantView,
  id: string,
): Promise<WebhookEndpointsTable> {
  const row = await findVisibleEndpoint(from, view, id)
  if (!row) throw new Problem(kernelProblems.not_found)
  return row
}
