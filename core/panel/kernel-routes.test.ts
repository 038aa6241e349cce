// Liveness and readiness: /healthz always, /readyz only while the store is open and migrated.

import { describe, expect, test } from 'bun:test'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'

describe('health routes', () => {
  test('/readyz is 200 when ready and 503 not_ready once the store is closed; /healthz stays 200', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    expect(await (await tp.request('GET', '/readyz')).json()).toEqual({ status: 'ok' })
    await tp.panel.close()
    const response = await tp.request('GET', '/readyz')
    expect(response.status).toBe(503)
    expect(((await response.json()) as { code: string }).code).toBe('not_ready')
    expect((await tp.request('GET', '/healthz')).status).toBe(200)
  })
})
