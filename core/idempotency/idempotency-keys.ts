// Idempotency-Key for creating POSTs: the first request's answer is kept and replayed; a different request with
// the same key, or one while the first still runs, is refused.

import { sha256 } from '@oslojs/crypto/sha2'
import { encodeHexLowerCase } from '@oslojs/encoding'
import type { SecretBox } from '../crypto/secret-box.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { preparedInsert, preparedQuery } from '../store/prepared-query.ts'
import type { Db, Store, Trx } from '../store/store.ts'
import type { IdempotencyKeysTable, IdempotencyTables } from './idempotency-tables.ts'

/** An answer as kept for replay. */
export interface KeptAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Bytes and streams only for answers that are never kept (reads, and answers sent as produced). */
  readonly body: string | null | Uint8Array | ReadableStream<Uint8Array>
}

/**
 * Kept bodies are sealed: an answer may carry a secret shown once (an API token, a webhook signing secret), which
 * must not lie in the store in clear for the whole window. Bodies kept before sealing (plain JSON) still replay.
 */
function sealBody(box: SecretBox, body: KeptAnswer['body']): string | null {
  if (body instanceof ReadableStream) throw new Error('A streamed answer cannot be kept for replays')
  if (body instanceof Uint8Array)
    throw new Error('An answer in bytes cannot be kept for replays: answer text')
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

/** Whose key it is and what the request was: keys are scoped to the caller, so two callers may use the same one. */
export interface IdempotencyClaim {
  readonly caller: string
  readonly key: string
  readonly fingerprint: string
  readonly windowMs: number
  readonly box: SecretBox
}

const keys = (db: Db) => db.withTables<IdempotencyTables>()

const keyRow = preparedQuery<{ caller: string; key: string }, IdempotencyKeysTable>((db, p) =>
  keys(db).selectFrom('idempotency_keys').selectAll().where('caller', '=', p.caller).where('key', '=', p.key),
)
const deleteKey = preparedQuery<{ caller: string; key: string }, never>((db, p) =>
  keys(db).deleteFrom('idempotency_keys').where('caller', '=', p.caller).where('key', '=', p.key),
)
const insertKey = preparedInsert<IdempotencyKeysTable>('idempotency_keys', [
  'caller',
  'key',
  'fingerprint',
  'state',
  'response_status',
  'response_headers',
  'response_body',
  'created_at',
  'expires_at',
])

/** How often at most one process sweeps expired keys: a few at a time as new ones come, never on every claim. */
const sweepIntervalMs = 10_000
let lastSweep = 0

/** Deletes up to 100 expired keys, at most once per {@link sweepIntervalMs} in this process. */
async function sweepExpired(db: Db, now: number): Promise<void> {
  if (now - lastSweep < sweepIntervalMs) return
  lastSweep = now
  const expired = await keys(db)
    .selectFrom('idempotency_keys')
    .select(['caller', 'key'])
    .where('expires_at', '<=', new Date(now).toISOString())
    .limit(100)
    .execute()
  for (const old of expired) await deleteKey(db, { caller: old.caller, key: old.key })
}

/**
 * What a key already holds for `claim`, read through `db` (a transaction's `trx` for an answer that counts): the
 * kept answer to replay, or null when the key is free (an expired or abandoned claim is deleted then). Throws 422
 * `idempotency_key_reused` for another request under the same key, 409 `idempotency_request_in_flight` while the
 * first one still runs.
 */
export async function keptAnswerOf(db: Db, claim: IdempotencyClaim): Promise<KeptAnswer | null> {
  const now = Date.now()
  const [row] = await keyRow(db, { caller: claim.caller, key: claim.key })
  if (!row) return null
  const abandoned = row.state === 'in_flight' && now - Date.parse(row.created_at) > inFlightLeaseMs
  if (Date.parse(row.expires_at) <= now || abandoned) {
    await deleteKey(db, { caller: claim.caller, key: claim.key })
    return null
  }
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

/**
 * Writes the key's row in `trx`: `in_flight` while the first request runs, or `done` with its answer; and sweeps
 * expired keys now and then.
 */
async function writeKey(trx: Trx, claim: IdempotencyClaim, answer: KeptAnswer | null): Promise<void> {
  const now = Date.now()
  await insertKey(trx, {
    caller: claim.caller,
    key: claim.key,
    fingerprint: claim.fingerprint,
    state: answer ? 'done' : 'in_flight',
    response_status: answer?.status ?? null,
    response_headers: answer ? JSON.stringify(answer.headers) : null,
    response_body: answer ? sealBody(claim.box, answer.body) : null,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + claim.windowMs).toISOString(),
  })
  await sweepExpired(trx, now)
}

/**
 * Keeps `answer` under a key {@link keptAnswerOf} found free in the same transaction `trx`: the claim, the change
 * and its answer then commit together, and a client never sees the key in flight. On PostgreSQL a concurrent
 * request that kept the same key first makes this transaction fail to serialize; run again, it replays that answer.
 */
export async function keepAnswerWith(trx: Trx, claim: IdempotencyClaim, answer: KeptAnswer): Promise<void> {
  await writeKey(trx, claim, answer)
}

/**
 * Claims `key` for `caller` in a transaction of its own: null when this request is the first (go ahead, then
 * `keep` or `release`), or the kept answer to replay; refuses as {@link keptAnswerOf} does. For a route whose
 * change the kernel runs, {@link keepAnswerWith} does the same in the change's own transaction.
 */
export async function claimIdempotencyKey(store: Store, claim: IdempotencyClaim): Promise<KeptAnswer | null> {
  return store.transaction(async (trx) => {
    const kept = await keptAnswerOf(trx, claim)
    if (kept) return kept
    await writeKey(trx, claim, null)
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
