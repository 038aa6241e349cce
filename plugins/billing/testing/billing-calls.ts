// Test support for billing's HTTP tests: the calls they make through a test panel, answered as typed values, and
// waits on jobs. It imports public contracts only; the tests mount the plugins and hand it their panel.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { definePlugin, type OutboxEvent } from '../../../core/index.ts'
import type { Site } from '../../sites/contract.ts'
import type { Plan, Subscription } from '../contract.ts'

/** The part of a test panel the calls use. */
export interface Requester {
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>
}

/** The JSON body of `response`, once its status is `status`; otherwise an error that shows what came instead. */
export async function expectStatus<T>(response: Response, status: number): Promise<T> {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`)
  return (await response.json()) as T
}

/** The body of a 201. */
export const created = <T>(response: Response): Promise<T> => expectStatus<T>(response, 201)

/** The body of a 200. */
export const ok = <T>(response: Response): Promise<T> => expectStatus<T>(response, 200)

/**
 * A plugin that keeps every event the outbox hands over, standing in for a webhook receiver, and a wait for one.
 * Mount `plugin` with the panel's `events.pollIntervalMs` short and call `panel.start()`.
 */
export function eventRecorder() {
  const events: OutboxEvent[] = []
  return {
    events,
    plugin: definePlugin({
      name: 'event-recorder',
      version: '1.0.0',
      description: 'Keeps every event the outbox hands over.',
      setup(context) {
        context.consumeEvents({ name: 'recorder', receive: async (_trx, event) => void events.push(event) })
      },
    }),
    /** The first event of `kind` about `subjectId` (its data's id), once it has been dispatched. */
    async eventually(kind: string, subjectId: string): Promise<OutboxEvent> {
      const deadline = Date.now() + 3_000
      for (;;) {
        const found = events.find((event) => event.kind === kind && event.data.id === subjectId)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no ${kind} for ${subjectId}`)
        await Bun.sleep(10)
      }
    },
  }
}

/** A job as the tests read it. */
export interface JobView {
  readonly id: string
  readonly kind: string
  readonly status: string
  readonly subject: { readonly id: string }
  readonly result: unknown
}

/**
 * Billing's calls through `tp`, made as `staffToken` (platform staff) unless a token is given. `dataDir` is the local
 * node's directory, for what the node has of a site.
 */
export function billingCalls(tp: Requester, staffToken: string, options: { readonly dataDir?: string } = {}) {
  let sequence = 0

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = await probe()
      if (found !== undefined) return found
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await Bun.sleep(10)
    }
  }

  const calls = {
    /** A new customer of `brandId` (default brand unless given). */
    async newCustomer(brandId?: string): Promise<string> {
      const body = { name: `Customer ${sequence++}`, ...(brandId ? { brandId } : {}) }
      return (
        await created<{ id: string }>(
          await tp.request('POST', '/api/v1/customers', { token: staffToken, body }),
        )
      ).id
    },

    /** A new plan of the default brand (or `extra.brandId`) with these limits. */
    async newPlan(limits: Record<string, number>, extra: Record<string, unknown> = {}): Promise<Plan> {
      return created<Plan>(
        await tp.request('POST', '/api/v1/plans', {
          token: staffToken,
          body: { name: `Plan ${sequence++}`, limits, ...extra },
        }),
      )
    },

    /** A subscription the provider starts (`POST /subscriptions`). */
    async subscribe(customerId: string, planId: string, token = staffToken): Promise<Subscription> {
      return created<Subscription>(
        await tp.request('POST', '/api/v1/subscriptions', { token, body: { customerId, planId } }),
      )
    },

    /** `POST /checkout` as `token`. */
    checkout(token: string, customerId: string, planId: string, headers?: Record<string, string>) {
      return tp.request('POST', '/api/v1/checkout', { token, body: { customerId, planId }, headers })
    },

    /** `POST /subscriptions/{id}/{verb}` (suspend, unsuspend, cancel). */
    act(
      id: string,
      verb: 'suspend' | 'unsuspend' | 'cancel',
      options: { token?: string; reason?: string } = {},
    ) {
      return tp.request('POST', `/api/v1/subscriptions/${id}/${verb}`, {
        token: options.token ?? staffToken,
        body: verb === 'suspend' ? { reason: options.reason ?? 'invoice 1042 unpaid' } : undefined,
      })
    },

    /** `PATCH /subscriptions/{id}`. */
    patch(id: string, body: Record<string, unknown>, token = staffToken) {
      return tp.request('PATCH', `/api/v1/subscriptions/${id}`, { token, body })
    },

    /** `POST /sites` for the customer, with a fresh domain. */
    createSite(customerId: string, extra: Record<string, unknown> = {}, token = staffToken) {
      return tp.request('POST', '/api/v1/sites', {
        token,
        body: { customerId, name: 'Site', type: 'wordpress', domain: `b${sequence++}.example.com`, ...extra },
      })
    },

    /** `POST /sites/{id}/{verb}`: staff suspension by hand. */
    siteAct(id: string, verb: 'suspend' | 'unsuspend', token = staffToken) {
      return tp.request('POST', `/api/v1/sites/${id}/${verb}`, { token })
    },

    /** The site as staff read it. */
    async site(id: string): Promise<Site> {
      return ok<Site>(await tp.request('GET', `/api/v1/sites/${id}`, { token: staffToken }))
    },

    /** A job as staff read it. */
    async job(id: string): Promise<JobView> {
      return ok<JobView>(await tp.request('GET', `/api/v1/jobs/${id}`, { token: staffToken }))
    },

    /** The latest job of `kind` about `subjectId`, once it is in `status`. */
    jobOf(kind: string, subjectId: string, status = 'succeeded', timeoutMs = 5_000): Promise<JobView> {
      return until(
        `${kind} of ${subjectId} to be ${status}`,
        async () => {
          const page = await ok<{ items: JobView[] }>(
            await tp.request('GET', '/api/v1/jobs?limit=100', { token: staffToken }),
          )
          const job = page.items.find((item) => item.kind === kind && item.subject.id === subjectId)
          return job?.status === status ? job : undefined
        },
        timeoutMs,
      )
    },

    /** Waits until the site is in `status` and the job that put it there has succeeded. */
    settled(id: string, status: string): Promise<Site> {
      return until(`site ${id} to settle as ${status}`, async () => {
        const current = await calls.site(id)
        if (current.status !== status || !current.jobId) return undefined
        return (await calls.job(current.jobId)).status === 'succeeded' ? current : undefined
      })
    },

    /** Waits until the site is gone (404). */
    gone(id: string, timeoutMs = 5_000): Promise<true> {
      return until(
        `site ${id} to be removed`,
        async () =>
          (await tp.request('GET', `/api/v1/sites/${id}`, { token: staffToken })).status === 404
            ? true
            : undefined,
        timeoutMs,
      )
    },

    /** A new site of the customer, once it is provisioned and `active`. */
    async activeSite(customerId: string, token = staffToken): Promise<Site> {
      return calls.settled((await created<Site>(await calls.createSite(customerId, {}, token))).id, 'active')
    },

    /** What the local node has for a site: `active` or `suspended` (the driver's own record). */
    onNode(id: string): string {
      if (!options.dataDir) throw new Error('billingCalls needs the node’s dataDir to read what it has')
      const state = readFileSync(join(options.dataDir, 'sites', id, 'state.json'), 'utf8')
      return (JSON.parse(state) as { state: string }).state
    },
  }
  return calls
}
