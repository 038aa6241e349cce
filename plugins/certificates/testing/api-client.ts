// The certificates tests' client of a test panel: requests as staff, answers checked and kept (so a test can
// search every answer for a key), polling that spares the rate limit, and the customers, sites and events the
// tests need.

import { type TestPanel, waitFor as waitForNow } from '../../../hosts/testing/index.ts'
import type { Site } from '../../sites/contract.ts'

/** What the tests call the panel with. */
export type ApiClient = ReturnType<typeof apiClientOf>

/** A client of `tp` sending `token` (another one per call when given). */
export function apiClientOf(tp: TestPanel, token: string) {
  /** Every answer's body, in order. */
  const answers: string[] = []

  const call = (method: string, path: string, body?: unknown, as = token) =>
    tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })

  /** The answer's JSON (null for none), after checking its status. */
  async function json<T>(response: Response, status: number): Promise<T> {
    const text = await response.text()
    answers.push(text)
    if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
    return (text ? JSON.parse(text) : null) as T
  }

  /** Polls `probe` every 50 ms: every request counts against the panel's rate limit. */
  function waitFor<T>(what: string, probe: () => Promise<T>, ms = 10_000) {
    return waitForNow(
      what,
      async () => {
        const value = await probe()
        if (!value) await Bun.sleep(50)
        return value
      },
      ms,
    )
  }

  async function newCustomer(name: string): Promise<string> {
    return (await json<{ id: string }>(await call('POST', '/customers', { name }), 201)).id
  }

  /** A site of `customerId` for `domain`, once its node has it. */
  async function newSite(customerId: string, domain: string): Promise<Site> {
    const site = await json<Site>(
      await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
      201,
    )
    return waitFor(`site ${domain}`, async () => {
      const now = await json<Site>(await call('GET', `/sites/${site.id}`), 200)
      return now.status === 'active' ? now : null
    })
  }

  /** The payloads of the events of `kind` put in the outbox so far, oldest first. */
  async function eventsOf(kind: string): Promise<Record<string, unknown>[]> {
    const rows = await tp.panel.store.db
      .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select(['kind', 'payload'])
      .where('kind', '=', kind)
      .orderBy('id')
      .execute()
    return rows.map((row) => JSON.parse(row.payload) as Record<string, unknown>)
  }

  return { answers, call, json, waitFor, newCustomer, newSite, eventsOf }
}
