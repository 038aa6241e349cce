// The OpenAPI document a standard panel serves at `/api/docs`, as a client fetches it.

import { createTestPanel } from '../hosts/testing/index.ts'

export async function servedDocument(): Promise<Record<string, unknown>> {
  const { panel } = await createTestPanel()
  try {
    const answer = await panel.handle(new Request('http://panel.test/api/docs/openapi.json'))
    return (await answer.json()) as Record<string, unknown>
  } finally {
    await panel.close()
  }
}
