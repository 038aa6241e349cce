// The brand's billing system as the panel meets it: signed callbacks posted to the panel. What a real integration
// sends, and what the tests send in its place.

import { signatureHeader, signCallback } from './signature.ts'

/** Whatever answers the panel's requests: a panel's `handle`, or a fetch to its URL. */
export type PanelHandler = (request: Request) => Promise<Response>

/** Sends callbacks to `handle`, signed with `secret` like the billing system signs them. */
export function billingSystem(handle: PanelHandler, secret: string) {
  let count = 0
  /** Posts raw bytes to the callback route with this signature header. */
  const post = (body: Uint8Array<ArrayBuffer> | string, signature: string) =>
    handle(
      new Request('http://localhost/api/v1/billing/callbacks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', [signatureHeader]: signature },
        body,
      }),
    )
  return {
    post,
    /**
     * Sends a callback: a fresh id, happening (`occurredAt`) and signed now, unless `body` or the options say
     * otherwise; `raw` is sent as it is.
     */
    send(body: Record<string, unknown>, options: { at?: number; key?: string; raw?: string } = {}) {
      const text =
        options.raw ?? JSON.stringify({ id: `evt-${count++}`, occurredAt: new Date().toISOString(), ...body })
      const at = options.at ?? Math.floor(Date.now() / 1000)
      return post(text, signCallback(options.key ?? secret, at, text))
    },
  }
}

/** A `plan.updated` callback body. */
export function planUpdate(externalId: string, limits: Record<string, number>, name = 'Plan') {
  return { type: 'plan.updated', data: { externalId, name, limits } }
}

/** A `subscription.updated` callback body. */
export function subscriptionUpdate(data: {
  externalId: string
  customerId: string
  planExternalId: string
  status: string
  reason?: string
}) {
  return { type: 'subscription.updated', data }
}
