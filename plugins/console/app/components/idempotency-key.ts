// One Idempotency-Key per form instance, so a double submit (or a retry after a lost answer) creates one resource.

import { useRef } from 'react'
import { ApiProblem } from '../api/problem.ts'

/** A fresh key; `crypto.randomUUID` exists only in secure contexts, so a panel on plain http falls back. */
function freshKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * The form's key, and `afterFailure(error)` to call when a submit fails: the API keeps a refusal (4xx) under its
 * key, so the corrected form must send a new one (else 422 `idempotency_key_reused`); a lost answer, a server
 * failure (the API keeps nothing then) or a first request still in flight keep the key, so a retry replays.
 * A form that stays for the next one calls `afterSuccess()`: under the same key, the next would replay this one.
 */
export function useIdempotencyKey(): {
  key: () => string
  afterFailure: (error: unknown) => void
  afterSuccess: () => void
} {
  const ref = useRef<string | null>(null)
  if (ref.current === null) ref.current = freshKey()
  return {
    key: () => ref.current ?? freshKey(),
    afterFailure: (error) => {
      if (error instanceof ApiProblem && error.status < 500 && error.code !== 'idempotency_request_in_flight')
        ref.current = freshKey()
    },
    afterSuccess: () => {
      ref.current = freshKey()
    },
  }
}
