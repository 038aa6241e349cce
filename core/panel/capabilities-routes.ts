// GET /capabilities: what this installation supports, what the caller may do, and the limits in force.

import { Type as t } from '@sinclair/typebox'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import type { QuotaLimits } from '../quotas/quota-limits.ts'
import { type Quotas, quotaSchema, soleCustomerOf } from '../quotas/quotas.ts'
import type { Db } from '../store/store.ts'
import type { PanelLimits } from './limits.ts'

/** What the capabilities operation reports about the installation, fixed once the panel is built. */
export interface Installation {
  readonly version: string
  readonly plugins: readonly {
    readonly name: string
    readonly version: string
    readonly capabilities: Readonly<Record<string, unknown>>
  }[]
  readonly eventKinds: readonly string[]
  readonly rateLimitPerMinute: number
  /** Limits of customers without a subscription. */
  readonly defaultCustomerLimits: QuotaLimits
  /** The metrics plans may limit. */
  readonly limitedMetrics: readonly { readonly name: string; readonly description: string }[]
}

const capabilitiesSchema = (quotas: Quotas, limited: Installation['limitedMetrics']) =>
  t.Object(
    {
      installation: t.Object({
        version: t.String(),
        plugins: t.Array(
          t.Object({
            name: t.String(),
            version: t.String(),
            capabilities: t.Record(t.String(), t.Unknown(), {
              description: 'What the plugin adds (the kinds of resource it offers, …).',
            }),
          }),
        ),
        eventKinds: t.Array(t.String(), { description: 'Every event kind the installation can emit.' }),
      }),
      caller: t.Object({
        kind: t.Union([t.Literal('platform'), t.Literal('brand'), t.Literal('member')]),
        userId: t.String(),
        brandId: t.Union([t.String(), t.Null()]),
        scopes: t.Array(t.String(), { description: 'Effective scopes of this credential.' }),
        customerId: t.Union([t.String(), t.Null()], { description: 'The customer a token is limited to.' }),
        quota: t.Union([quotaSchema(limited), t.Null()], {
          description:
            'When the caller sees exactly one customer (a member of one team, or a token limited to one customer): that customer’s limits beside its use. Null for staff and members of several teams, who ask `GET /usage?customerId=`.',
        }),
      }),
      limits: t.Object({
        pageSize: t.Object({ default: t.Integer(), max: t.Integer() }),
        bodyBytes: t.Integer(),
        uploadBytes: t.Integer({
          description: 'Largest file an upload may stream through (`UPLOAD_LIMIT_BYTES`).',
        }),
        tokenLifetimeDays: t.Object({ default: t.Integer(), max: t.Integer() }),
        idempotencyWindowHours: t.Integer(),
        rateLimitPerMinute: t.Integer({
          description:
            'Requests a minute per token, session, or principal of a plugin’s own credential that has an allowance of its own (a node’s agent); per address without one.',
        }),
        defaultCustomerLimits: quotas.limitsSchema,
      }),
    },
    { $id: 'Capabilities' },
  )

/** The capabilities operation. */
export function capabilitiesRoutes(
  installation: Installation,
  limits: PanelLimits,
  quotas: { readonly db: Db; readonly service: Quotas },
): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/capabilities',
      operationId: 'getCapabilities',
      summary: 'What this installation supports, the caller’s permissions and the limits',
      authenticated: true,
      responses: {
        200: {
          description: 'The capabilities.',
          schema: capabilitiesSchema(quotas.service, installation.limitedMetrics),
        },
      },
      handler: async ({ caller }) => {
        const customerId = soleCustomerOf(caller.view)
        return {
          installation: {
            version: installation.version,
            plugins: installation.plugins,
            eventKinds: installation.eventKinds,
          },
          caller: {
            kind: caller.kind,
            userId: caller.user.id,
            brandId: caller.user.brandId,
            scopes: [...caller.scopes].sort(),
            customerId: caller.token?.customerId ?? null,
            quota: customerId === null ? null : await quotas.service.of(quotas.db, customerId),
          },
          limits: {
            pageSize: { default: 20, max: 100 },
            bodyBytes: limits.bodyBytes,
            uploadBytes: limits.uploadBytes,
            tokenLifetimeDays: { default: limits.tokenDefaultLifetimeDays, max: limits.tokenMaxLifetimeDays },
            idempotencyWindowHours: limits.idempotencyWindowHours,
            rateLimitPerMinute: installation.rateLimitPerMinute,
            defaultCustomerLimits: installation.defaultCustomerLimits,
          },
        }
      },
    }),
  ]
}
