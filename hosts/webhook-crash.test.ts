// SIGKILL between a change and its webhook, black-box: the real server is killed hard while events are in the
// outbox or waiting for a retry, started again on the same DATA_DIR, and a receiver on loopback still gets every
// event, signed, with its original webhook-id.

import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  killHard,
  type Standalone,
} from './testing/host-process.ts'
import { type Page, startWebhookReceiver, type WebhookReceiver } from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-webhook-crash-')
const receivers: WebhookReceiver[] = []
afterAll(async () => {
  await cleanup()
  for (const receiver of receivers) receiver.stop()
})

const serverEnv = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', JOB_LEASE_MS: '2000' }

/** A server with an endpoint for site.created and job.finished at a fresh receiver, and a customer. */
async function setUp() {
  const dataDir = tempDataDir()
  const server = await startStandalone(dataDir, serverEnv)
  const token = await cliStaffToken(runCli, dataDir)
  const call = apiClient(server, token)
  const receiver = startWebhookReceiver()
  receivers.push(receiver)
  const endpoint = await call<{ id: string; secret: string }>('POST', '/webhooks', {
    url: receiver.url,
    events: ['site.created', 'job.finished'],
  })
  expect(endpoint.status).toBe(201)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  expect(customer.status).toBe(201)
  return { dataDir, server, token, call, receiver, endpoint: endpoint.body, customerId: customer.body.id }
}

/** Both events of one site, as the receiver got them (at least once each), verified with the endpoint's secret. */
async function bothEvents(receiver: WebhookReceiver, secret: string, site: { id: string; jobId: string }) {
  // A delivery the killed server had claimed (its attempt under way) is made again once its lease runs out: the
  // attempt's timeout and 5 s more, beyond 20 s.
  const created = await receiver.waitFor(
    (hook) => hook.json.type === 'site.created' && hook.json.data.id === site.id,
    40_000,
  )
  const finished = await receiver.waitFor(
    (hook) =>
      hook.json.type === 'job.finished' &&
      hook.json.data.id === site.jobId &&
      hook.json.data.status === 'succeeded',
    20_000,
  )
  const verifier = new StandardWebhook(secret)
  for (const hook of [created, finished]) expect(verifier.verify(hook.body, hook.headers)).toEqual(hook.json)
  return { created, finished }
}

describe('webhooks survive SIGKILL', () => {
  test('killed right after the 201: the events in the outbox are delivered after the restart', async () => {
    const { dataDir, server, token, call, receiver, endpoint, customerId } = await setUp()
    const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: 'shop.example.com',
    })
    expect(site.status).toBe(201)
    await killHard(server)
    const restarted = await startStandalone(dataDir, serverEnv)
    await bothEvents(receiver, endpoint.secret, site.body)
    const log = await apiClient(restarted, token)<Page<{ status: string }>>(
      'GET',
      `/webhooks/${endpoint.id}/deliveries`,
    )
    expect(log.body.items.length).toBeGreaterThanOrEqual(2)
    restarted.process.kill('SIGTERM')
  }, 90_000)

  test('killed while a delivery waits for its retry: the restarted server retries it with the same webhook-id', async () => {
    const { dataDir, server, token, call, receiver, endpoint, customerId } = await setUp()
    receiver.answer(503)
    const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
      customerId,
      name: 'Blog',
      type: 'wordpress',
      domain: 'blog.example.com',
    })
    const refused = await receiver.waitFor((hook) => hook.json.type === 'site.created', 20_000)
    // Killed once the refusal is recorded: the delivery is pending, due about 5 s after its first attempt.
    const siteCreated = (from: Standalone) =>
      apiClient(from, token)<Page<{ status: string; attempts: number }>>(
        'GET',
        `/webhooks/${endpoint.id}/deliveries?eventType=site.created`,
      )
    for (let tries = 0; (await siteCreated(server)).body.items[0]?.attempts !== 1; tries++) {
      expect(tries).toBeLessThan(500)
      await Bun.sleep(20)
    }
    await killHard(server)
    receiver.answer(204)
    const restarted = await startStandalone(dataDir, serverEnv)
    const { created } = await bothEvents(receiver, endpoint.secret, site.body)
    const accepted = await receiver.waitFor(
      (hook) =>
        hook.json.type === 'site.created' &&
        hook !== refused &&
        hook.headers['webhook-id'] === refused.headers['webhook-id'],
      20_000,
    )
    expect(accepted.body).toBe(refused.body)
    expect(created.headers['webhook-id']).toBe(refused.headers['webhook-id'])
    const deadline = Date.now() + 10_000
    let item = (await siteCreated(restarted)).body.items[0]
    while (item?.status !== 'succeeded' && Date.now() < deadline) {
      await Bun.sleep(50)
      item = (await siteCreated(restarted)).body.items[0]
    }
    expect(item).toMatchObject({ status: 'succeeded' })
    expect(item?.attempts).toBeGreaterThanOrEqual(2)
    restarted.process.kill('SIGTERM')
  }, 60_000)
})
