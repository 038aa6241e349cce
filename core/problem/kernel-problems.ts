// The kernel's own refusals: transport, authentication, validation. Plugins add theirs through definePlugin.

import { defineProblems } from './problem-code.ts'

/** Problem codes answered by the kernel itself, whatever plugins are mounted. */
export const kernelProblems = defineProblems({
  validation_failed: {
    status: 422,
    detail: 'The request has invalid fields.',
    description:
      'One or more body or query fields failed validation. Each failure is an item of `errors[]` with its `location`, `message` and a field code (see the field codes table).',
  },
  malformed_json: {
    status: 400,
    detail: 'The request body is not valid JSON.',
    description: 'The body could not be parsed as JSON. Nothing was changed.',
  },
  unsupported_media_type: {
    status: 415,
    detail: 'Request bodies must be sent as application/json.',
    description:
      'A request carried a body whose `Content-Type` is not the one its operation takes: `application/json`, or for an operation taking raw bytes (a file’s content) `application/octet-stream`, which a body sent without a `Content-Type` is taken to be. `accepted` names the one it takes.',
  },
  body_too_large: {
    status: 413,
    detail: 'The request body is larger than this installation accepts.',
    description: 'The body exceeds `BODY_LIMIT_BYTES` (1 MiB by default); the limit is in `limitBytes`.',
  },
  invalid_cursor: {
    status: 400,
    detail: 'The cursor is not one this list handed out to you.',
    description:
      'A cursor was altered, or comes from another list, other filters or another caller. Start again without one.',
  },
  unknown_customer: {
    status: 422,
    detail: 'No customer with this id exists within your view.',
    description:
      'The `customerId` names no customer the caller may see (missing and invisible look the same): creating a resource or a token for it is refused.',
  },
  unknown_brand: {
    status: 422,
    detail: 'No brand with this id exists within your view.',
    description: 'The `brandId` names no brand the caller may use (brand staff may use only their own).',
  },
  invalid_idempotency_key: {
    status: 400,
    detail: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
    description: 'A malformed `Idempotency-Key`; nothing was done.',
  },
  idempotency_key_reused: {
    status: 422,
    detail: 'This Idempotency-Key was used for a different request.',
    description:
      'The same key came with another method, path or body within the idempotency window (24 hours). Use a new key.',
  },
  idempotency_request_in_flight: {
    status: 409,
    detail: 'A request with this Idempotency-Key is still being processed.',
    description:
      'The first request with the key has not answered yet; retry after `Retry-After` seconds to get its answer.',
  },
  route_not_found: {
    status: 404,
    detail: 'No operation exists at this path.',
    description:
      'The path matches no operation of this installation. See `/api/docs` for the operations it has.',
  },
  not_found: {
    status: 404,
    detail: 'The resource does not exist or is not visible to the caller.',
    description:
      'The identifier names nothing the caller may see. Plinth does not distinguish a missing resource from one outside the caller’s view.',
  },
  method_not_allowed: {
    status: 405,
    detail: 'The path exists but does not accept this method.',
    description: 'The methods the path accepts are in the `Allow` header.',
  },
  unauthenticated: {
    status: 401,
    detail: 'This operation needs credentials: send Authorization: Bearer <token>, or sign in.',
    description:
      'The request carried neither a bearer token nor a session cookie. The response has `WWW-Authenticate: Bearer`.',
  },
  invalid_token: {
    status: 401,
    detail: 'The bearer token is not valid.',
    description: 'The token is malformed, fails its checksum, is unknown, or was revoked.',
  },
  token_expired: {
    status: 401,
    detail: 'The bearer token has expired.',
    description: 'The token is past its `expiresAt`; create a new one.',
  },
  session_expired: {
    status: 401,
    detail: 'The session has ended; sign in again.',
    description: 'The session cookie is unknown, expired, or was ended by logout or a password change.',
  },
  account_disabled: {
    status: 401,
    detail: 'This account is disabled; ask the provider’s staff to enable it again.',
    description:
      'Staff disabled the user: their sessions were ended, their API tokens are refused (they work again, unless expired or revoked, once the user is enabled), and signing in is refused once the password is right (a wrong one is still `invalid_credentials`).',
  },
  invalid_credentials: {
    status: 401,
    detail: 'The e-mail address or password is wrong.',
    description: 'Login failed. The answer does not say which of the two was wrong.',
  },
  rate_limited: {
    status: 429,
    detail: 'Too many requests; slow down.',
    description:
      'The credential (or, without one, the address) went over its requests a minute (`RATE_LIMIT_PER_MINUTE`, 1,200 by default; login 30). `Retry-After`, `RateLimit` and `RateLimit-Policy` say when it resets.',
  },
  too_many_attempts: {
    status: 429,
    detail: 'Too many failed sign-in attempts; wait before trying again.',
    description:
      'Repeated failed logins for this account from this address, from this address, or for this account from everywhere; `Retry-After` says how long to wait.',
  },
  csrf_token_invalid: {
    status: 403,
    detail: 'A state change by session cookie needs the session’s X-CSRF-Token header.',
    description: 'The `X-CSRF-Token` header is missing or is not the one login returned for this session.',
  },
  cross_origin_request: {
    status: 403,
    detail: 'A state change by session cookie must come from the panel’s own origin.',
    description:
      'Neither `Sec-Fetch-Site: same-origin` nor a matching `Origin` header was sent with a cookie-authenticated change.',
  },
  insufficient_scope: {
    status: 403,
    detail: 'The credentials lack the scope this operation needs.',
    description: 'The caller’s effective scopes do not include the one named in `scope`.',
  },
  wildcard_token_required: {
    status: 403,
    detail: 'Only a session or a token with the scope * may do this.',
    description:
      'Creating and revoking API tokens is open to a session or to a token that carries `*`; narrower tokens cannot.',
  },
  staff_only: {
    status: 403,
    detail: 'This operation is for platform or brand staff.',
    description:
      'Staff areas refuse members of customers’ teams, and tokens limited to one customer whatever their creator may do.',
  },
  internal_error: {
    status: 500,
    detail: 'The server failed to handle the request. Quote the requestId when reporting it.',
    description: 'An unexpected failure. Nothing internal is disclosed; `requestId` matches the server log.',
  },
  precondition_failed: {
    status: 412,
    detail: 'The resource changed since you read it: its ETag no longer matches If-Match.',
    description:
      'A `PATCH`, `PUT` or `DELETE` carried `If-Match` with ETags none of which is the resource’s current one (someone changed it meanwhile). Read it again (`GET` answers the current `ETag`), then retry. Nothing was changed.',
  },
  customer_deleting: {
    status: 409,
    detail: 'The customer is being deleted; nothing new can be made for it.',
    description:
      'A customer whose deletion started (`DELETE /customers/{id}`, status `deleting`) takes no new resources, members or subscriptions: its deletion job removes everything it owns, then the customer is gone (404).',
  },
  customer_suspended: {
    status: 422,
    detail:
      'The customer’s subscriptions are suspended; nothing new can be created until one is active again.',
    description:
      'The customer has no live subscription, and one is suspended or cancelled with its removal pending (docs/billing.md), so creating what its limits count is refused until billing restores one or the removal has run.',
  },
  not_ready: {
    status: 503,
    detail: 'The panel is not ready to serve requests.',
    description: 'Answered by `/readyz` while the store is closed or migrations are pending.',
  },
})

/** Codes used inside `errors[]` of a `validation_failed` problem, one per kind of field failure. */
export const fieldCodes = {
  required: 'A required field is missing.',
  invalid_type: 'The value has the wrong JSON type (a string where a number is expected, ...).',
  too_short: 'A string is shorter than its minimum length, or blank.',
  too_long: 'A string is longer than its maximum length.',
  out_of_range:
    'A number is below its minimum or above its maximum, or not a whole number where one is needed.',
  invalid_format: 'A string does not have the required format (pattern, e-mail address, date-time, ...).',
  invalid_value: 'The value is not one of the accepted values.',
  unknown_field: 'The field is not part of this request; unknown fields are refused, not ignored.',
  too_few_items: 'An array has fewer items than its minimum.',
  too_many_items: 'An array has more items than its maximum.',
  duplicate_items: 'An array repeats an item where items must be unique.',
  wrong_password: 'The current password given to change it is not the current password.',
  invalid_characters:
    'A string holds NUL or an unpaired UTF-16 surrogate, which would be stored altered; nothing was stored.',
} as const

/** A field code name. */
export type FieldCode = keyof typeof fieldCodes
