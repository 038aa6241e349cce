// Liveness and readiness: /healthz always, /readyz only while the store is open and migrated.

import { describe, expect, test } from 'bun:test'
import { definePlugin } from '../plugin/define-plugin.ts'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'

describe('health routes', () => {
  test('/readyz is 200 when ready and 503 not_ready once the store is closed; /healthz stays 200', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    expect(await (await tp.request('GET', '/readyz')).json()).toEqual({ status: 'ok', checks: [] })
    await tp.panel.close()
    const response = await tp.request('GET', '/readyz')
    expect(response.status).toBe(503)
    expect(((await response.json()) as { code: string }).code).toBe('not_ready')
    expect((await tp.request('GET', '/healthz')).status).toBe(200)
  })
})

describe('readiness checks plugins contribute', () => {
  test('/readyz is 200 degraded naming a check that is not ready with its reasons, ok again once it is; a check that throws is not ready', async () => {
    let serving = false
    const tp = await createKernelTestPanel({
      plugins: [
        definePlugin({
          name: 'boxes',
          version: '1.0.0',
          description: 'A plugin whose boxes can be down while the API answers.',
          readinessChecks: () => [
            {
              name: 'box',
              description: 'The box serves.',
              check: async () =>
                serving
                  ? { ready: true, reasons: [] }
                  : { ready: false, reasons: [{ code: 'port_taken', message: 'port 80 is taken' }] },
            },
            {
              name: 'flaky',
              description: 'A check that fails to check.',
              check: () => Promise.reject(new Error('cannot tell')),
            },
          ],
        }),
      ],
    })
    try {
      const degraded = await tp.request('GET', '/readyz')
      expect(degraded.status).toBe(200)
      expect(await degraded.json()).toEqual({
        status: 'degraded',
        checks: [
          { name: 'boxes.box', ready: false, reasons: [{ code: 'port_taken', message: 'port 80 is taken' }] },
          { name: 'boxes.flaky', ready: false, reasons: [{ code: 'check_failed', message: 'cannot tell' }] },
        ],
      })
      serving = true
      const body = (await (await tp.request('GET', '/readyz')).json()) as { checks: { ready: boolean }[] }
      expect(body.checks.map((check) => check.ready)).toEqual([true, false])
    } finally {
      await tp.panel.close()
    }
  })
})
