// What the request pipeline needs of the panel, and what it knows of one request: shared by its stages.

import type { AuditActor } from '../audit/audit-log.ts'
import type { AuthenticationContext } from '../auth/authenticate.ts'
import type { Caller } from '../auth/caller.ts'
import type { SecretBox } from '../crypto/secret-box.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { JobRequester } from '../jobs/job-queue.ts'
import type { Logger } from '../plugin/define-plugin.ts'
import type { AuditInput, RouteDefinition } from '../plugin/route.ts'
import type { Quotas } from '../quotas/quotas.ts'
import type { Store, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { UsageCounters } from '../usage/usage-counters.ts'
import type { ContractChecks } from './contract-checks.ts'
import type { RateKey, RateLimiter } from './rate-limiter.ts'

/** What the pipeline needs of the panel. */
export interface PipelineRuntime {
  readonly store: Store
  /** What authentication needs: the store, the secret (CSRF), and who may hold each scope. */
  readonly auth: AuthenticationContext
  readonly bodyLimitBytes: number
  /** The API base path, prefixed to `Location` headers. */
  readonly basePath: string
  /** How long an Idempotency-Key's answer is kept. */
  readonly idempotencyWindowMs: number
  /** Seals kept answers at rest (they may carry secrets shown once). */
  readonly idempotencyBox: SecretBox
  /** Inserts a job in the handler's transaction, recording who asked. */
  enqueueJob(trx: Trx, job: JobRequest, requester: JobRequester): Promise<string>
  /** Customers' limits and a plugin's usage counters: what its changes declaring `usage` count with. */
  countersOf?(plugin: string): { readonly quotas: Quotas; readonly usage: UsageCounters }
  /** Writes an audit entry in the handler's transaction. */
  audit(trx: Trx, actor: AuditActor, entry: AuditInput): Promise<void>
  /** After a handler returned (its transactions committed): wake the job workers and the event dispatcher. */
  committed(work: { jobs: boolean; events: boolean }): void
  /** Test panels: the checks that fail a request breaking its route's declared contract; null otherwise. */
  readonly contractChecks: ContractChecks | null
  /** Requests a minute per credential, per address for anonymous callers and failed credentials. */
  readonly limiter: RateLimiter
  /** Told of every request refused by the limiter, with whose allowance it went over (for the metrics). */
  rateLimited?(key: RateKey): void
  /** Where unexpected failures are logged, under the request id. */
  readonly log: Logger
  /** Aborts when the panel begins to stop: live event streams end then (see `event-stream-end.ts`). */
  readonly stopping?: AbortSignal
}

/** What a host knows of a request beyond the Request itself. */
export interface RequestInfo {
  readonly requestId: string
  readonly address: string | null
  /** Filled in while the request is answered, for the request log. */
  readonly trace?: RequestTrace
}

/** Who a request turned out to come from, and where it went: what its log line says. */
export interface RequestTrace {
  /** The route template (`/api/v1/sites/:id`). */
  route?: string
  userId?: string | null
  tokenId?: string | null
  /** The customer a token is limited to, or the one customer a caller sees. */
  customerId?: string | null
}

/** A read route's current representation for a caller: what If-Match on a change of the same path compares. */
export type CurrentRepresentation = (
  caller: Caller | null,
  view: TenantView | null,
  params: Record<string, string>,
  request: Request,
  info: RequestInfo,
) => Promise<string | Uint8Array>

/** A mounted route: its checked schemas and the function that answers it. */
export interface CompiledRoute {
  readonly route: RouteDefinition
  readonly plugin: string
  /** Answers `request`, refusals included (as problem+json), with the rate limit headers of whoever it charged. */
  answer(request: Request, params: Record<string, string>, info: RequestInfo): Promise<Response>
  /** For a single-resource read: its representation, run as another route's caller would see it. */
  readonly current: CurrentRepresentation | null
}

/** One route as its stages see it: the declaration, whose it is, and the panel it runs in. */
export interface RouteUnderway {
  readonly route: RouteDefinition
  readonly plugin: string
  /** `POST /sites (sites)`: how errors and contract failures name the route. */
  readonly label: string
  readonly runtime: PipelineRuntime
  /** The event kinds its plugin declares: the only ones it may emit. */
  readonly eventKinds: ReadonlySet<string>
}

/** What one request was charged to: the headers of the last allowance it counted against. */
export interface Charges {
  headers: Readonly<Record<string, string>> | undefined
  /** The credential counted already, when the request was first answered on a guessed caller. */
  credential?: string
}

/** The view a route's handler reads with: the caller's with the route's scope (with no scope: with any). */
export function viewOf(route: RouteDefinition, caller: Caller | null): TenantView | null {
  return caller ? (route.scope ? caller.viewFor(route.scope) : caller.view) : null
}
