// Idempotency-Key for creating POSTs: the first request's answer is kept and replayed; a different request with
// the same key, or one while the first still runs, is refused.

import { sha256 } from '@oslojs/crypto/sha2'
import { encodeHexLowerCase } from '@oslojs/encoding'
import type { SecretBox } from '../crypto/secret-box.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Store } from '../store/store.ts'
import type { IdempotencyTables } from './idempotency-tables.ts'

/** An answer as kept for replay. */
export interface KeptAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | null
}

/**
 * Kept bodies are sealed: an answer may carry a secret shown once (an API token, a webhook signing secret), which
 * must not lie in the store in clear for the whole window. Bodies kept before sealing (plain JSON) still replay.
 */
function sealBody(box: SecretBox, body: string | null): string | null {
  return body === null ? null : box.seal(body)
}

function openBody(box: SecretBox, stored: string | null): string | null {
  if (stored === null || !stored.startsWith('v1.')) return stored
  return box.open(stored)
}

/** How long a first request may run before its key is considered abandoned (its process died). */
const inFlightLeaseMs = 60_000
const keyPattern = /^[\x20-\x7e]{1,255}$/

/** The request's Idempotency-Key, or null without one; 400 `invalid_idempotency_key` for a malformed one. */
export function idempotencyKeyOf(request: Request): string | null {
  const key = request.headers.get('idempotency-key')
  if (key === null) return null
  if (!keyPattern.test(key)) {
    throw new Problem(kernelProblems.invalid_idempotency_key, {
      errors: [
        {
          location: 'header.Idempotency-Key',
          message: 'must be 1 to 255 printable ASCII characters',
          code: 'invalid_format',
        },
      ],
    })
  }
  return key
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** What makes two requests "the same": method, path and body. */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(`${method} ${path}\n${canonical(body ?? null)}`)))
}

/**
 * Claims `key` for `caller`: null when this request is the first (go ahead, then `keep` or `release`), or the kept
 * answer to replay. Throws 422 `idempotency_key_reused` for another request under the same key, and 409
 * `idempotency_request_in_flight` while the first one still runs.
 */
export async function claimIdempotencyKey(
  store: Store,
  claim: { caller: string; key: string; fingerprint: string; windowMs: number; box: SecretBox },
): Promise<KeptAnswer | null> {
  return store.transaction(async (trx) => {
    const keys = trx.withTables<IdempotencyTables>()
    const now = Date.now()
    const row = await keys
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('caller', '=', claim.caller)
      .where('key', '=', claim.key)
      .executeTakeFirst()
    const abandoned = row?.state === 'in_flight' && now - Date.parse(row.created_at) > inFlightLeaseMs
    if (row && Date.parse(row.expires_at) > now && !abandoned) {
      if (row.fingerprint !== claim.fingerprint) throw new Problem(kernelProblems.idempotency_key_reused)
      if (row.state !== 'done' || row.response_status === null) {
        throw new Problem(kernelProblems.idempotency_request_in_flight, { headers: { 'retry-after': '1' } })
      }
      return {
        status: row.response_status,
        headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
        body: openBody(claim.box, row.response_body),
      }
    }
    if (row)
      await keys
        .deleteFrom('idempotency_keys')
        .where('caller', '=', claim.caller)
        .where('key', '=', claim.key)
        .execute()
    // Expired keys go as new ones come, a few at a time, so the table never needs a sweeper of its own.
    const expired = await keys
      .selectFrom('idempotency_keys')
      .select(['caller', 'key'])
      .where('expires_at', '<=', new Date(now).toISOString())
      .limit(20)
      .execute()
    for (const old of expired) {
      await keys
        .deleteFrom('idempotency_keys')
        .where('caller', '=', old.caller)
        .where('key', '=', old.key)
        .execute()
    }
    await keys
      .insertInto('idempotency_keys')
      .values({
        caller: claim.caller,
        key: claim.key,
        fingerprint: claim.fingerprint,
        state: 'in_flight',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + claim.windowMs).toISOString(),
      })
      .execute()
    return null
  })
}

/** Keeps the first request's answer for replay, its body sealed with `box`. */
export async function keepAnswer(
  store: Store,
  caller: string,
  key: string,
  answer: KeptAnswer,
  box: SecretBox,
): Promise<void> {
  await store.db
    .withTables<IdempotencyTables>()
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      response_status: answer.status,
      response_headers: JSON.stringify(answer.headers),
      response_body: sealBody(box, answer.body),
    })
    .where('caller', '=', caller)
    .where('key', '=', key)
    .execute()
}

/** Forgets a claim whose request failed on the server's side, so the client can try again with the same key. */
export async function releaseIdempotencyKey(store: Store, caller: string, key: string): Promise<void> {
  await store.db
    .withTables<IdempotencyTables>()
    .deleteFrom('idempotency_keys')
    .where('caller', '=', caller)
    .where('key', '=', key)
    .execute()
}
