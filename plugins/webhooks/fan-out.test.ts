// Which endpoints an event is fanned out to: the time it occurred decides, not when the dispatcher gets to it.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { newId, type OutboxEvent } from '../../core/index.ts'
import { createTestPanel, type TestPanel } from '../../hosts/testing/index.ts'
import type { WebhookWithSecret } from './contract.ts'
import { webhooksPlugin } from './index.ts'
import { endpointsForEvents } from './repository.ts'

let tp: TestPanel
let endpoint: WebhookWithSecret

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [webhooksPlugin({ resolve: async () => [{ address: '93.184.216.34', family: 4 }] })],
  })
  const response = await tp.request('POST', '/api/v1/webhooks', {
    token: await tp.token(),
    body: { url: 'https://hooks.example.com/in', events: ['*'] },
  })
  expect(response.status).toBe(201)
  endpoint = (await response.json()) as WebhookWithSecret
})
afterAll(() => tp.panel.close())

const eventAt = (occurredAt: string): OutboxEvent => ({
  id: newId('evt'),
  kind: 'customer.created',
  occurredAt,
  customerId: null,
  brandId: null,
  data: {},
})

test('an endpoint receives the events that occurred from its creation on, however late they are fanned out', async () => {
  const created = Date.parse(endpoint.createdAt)
  const before = eventAt(new Date(created - 1).toISOString())
  const same = eventAt(endpoint.createdAt)
  const after = eventAt(new Date(created + 1).toISOString())
  const endpointsOf = await endpointsForEvents(tp.panel.store.db, [before, same, after])
  expect(endpointsOf(before)).toEqual([])
  expect(endpointsOf(same).map((row) => row.id)).toEqual([endpoint.id])
  expect(endpointsOf(after).map((row) => row.id)).toEqual([endpoint.id])
})
