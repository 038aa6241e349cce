// Plan operations, a staff area: platform staff manage every brand's plans, brand staff their own brand's.

import {
  brandDirectoryService,
  brandForRecord,
  checkQuotaLimits,
  defineRoute,
  idPattern,
  kernelProblems,
  newId,
  nonBlank,
  nowIso,
  type PluginContext,
  Problem,
  pageOf,
  pageQuery,
  type QuotaLimits,
  QuotaLimitsSchema,
  quotaMetrics,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { billingScopes, Plan, planStatuses } from '../contract.ts'
import type { PlansTable } from '../migrations.ts'
import { insertPlan, limitsOf, toPlan, updatePlan, visiblePlans } from '../repository.ts'

const Name = t.String({
  minLength: 1,
  maxLength: 100,
  description: 'Display name; surrounding spaces are trimmed.',
})
const Description = t.String({ maxLength: 1000, description: 'What the plan is for.' })

const CreatePlanBody = t.Object(
  {
    name: Name,
    description: t.Optional(Description),
    brandId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description: 'The brand offering it. Default: the caller’s brand (brand staff) or the default brand.',
      }),
    ),
    limits: t.Optional(QuotaLimitsSchema),
  },
  { $id: 'CreatePlanBody' },
)

const limitChange = (description: string) =>
  t.Optional(t.Union([t.Integer({ minimum: 0, maximum: 1_000_000_000 }), t.Null()], { description }))

const UpdatePlanBody = t.Object(
  {
    name: t.Optional(Name),
    description: t.Optional(
      t.Union([Description, t.Null()], { description: 'null removes the description.' }),
    ),
    limits: t.Optional(
      t.Object(
        {
          sites: limitChange('New sites limit; null removes it.'),
          databases: limitChange('New databases limit; null removes it.'),
          domains: limitChange('New domains limit; null removes it.'),
          diskMB: limitChange('New disk limit in MB; null removes it.'),
        },
        { description: 'Limits to change; omitted members stay as they are, null ones become unlimited.' },
      ),
    ),
    status: t.Optional(
      t.Union(
        planStatuses.map((status) => t.Literal(status)),
        { description: '`archived` stops new subscriptions; `active` takes them again.' },
      ),
    ),
  },
  { $id: 'UpdatePlanBody' },
)

const ListPlansQuery = t.Object({
  ...pageQuery,
  brandId: t.Optional(
    t.String({ maxLength: 64, description: 'Only this brand’s plans (narrows, never widens).' }),
  ),
  status: t.Optional(t.Union(planStatuses.map((status) => t.Literal(status)))),
})

const PlanParams = t.Object({ id: t.String({ pattern: idPattern('pln'), description: 'Plan id, `pln_…`.' }) })

/** The plans routes. */
export function planRoutes(context: PluginContext): RouteDefinition[] {
  const brands = context.use(brandDirectoryService)

  return [
    defineRoute({
      method: 'POST',
      path: '/plans',
      operationId: 'createPlan',
      idempotent: true,
      summary: 'Create a plan',
      description:
        'Staff only: a plan names the limits its subscribers get (`sites`, `databases`, `domains`, `diskMB`; an absent limit is unlimited). It is offered to the customers of one brand. `plan.created` is sent with it.',
      scope: billingScopes.planManage,
      body: CreatePlanBody,
      responses: {
        201: { description: 'The new plan.', schema: Plan, headers: { Location: 'URL of the plan.' } },
      },
      problems: [kernelProblems.unknown_brand],
      async handler({ body, caller, audit, emit }) {
        const name = nonBlank(body.name, 'body.name')
        const brandId = await brandForRecord(caller, body.brandId, () => brands, 'default')
        const limits = checkQuotaLimits(body.limits ?? {})
        const now = nowIso()
        const row: PlansTable = {
          id: newId('pln'),
          brand_id: brandId,
          name,
          description: body.description?.trim() || null,
          limits: JSON.stringify(limits),
          status: 'active',
          created_at: now,
          updated_at: now,
        }
        await context.transaction(async (trx) => {
          await insertPlan(trx, row)
          await audit(trx, {
            action: 'plan.create',
            subject: { type: 'plan', id: row.id },
            customerId: null,
            details: { name, brandId, limits },
          })
          await emit(trx, { kind: 'plan.created', customerId: null, data: toPlan(row) })
        })
        return Reply.created(toPlan(row), `/plans/${row.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/plans',
      operationId: 'listPlans',
      summary: 'List plans',
      description: 'Every plan for platform staff, their brand’s for brand staff; oldest first.',
      scope: billingScopes.planRead,
      query: ListPlansQuery,
      responses: { 200: { description: 'A page of plans.', schema: pageOf(Plan, 'PlanPage') } },
      async handler({ query, view, page }) {
        const { cursor: _cursor, limit: _limit, ...filters } = query
        let plans = visiblePlans(context.db, view)
        if (filters.brandId !== undefined) plans = plans.where('brand_id', '=', filters.brandId)
        if (filters.status !== undefined) plans = plans.where('status', '=', filters.status)
        const { rows, nextCursor } = await page(plans, {
          keyColumn: 'plans.id',
          keyOf: (row) => row.id,
          filters,
        })
        return { items: rows.map(toPlan), nextCursor }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/plans/:id',
      operationId: 'getPlan',
      summary: 'Read a plan',
      scope: billingScopes.planRead,
      params: PlanParams,
      responses: { 200: { description: 'The plan.', schema: Plan } },
      async handler({ params, view }) {
        const row = await visiblePlans(context.db, view).where('id', '=', params.id).executeTakeFirst()
        if (!row) throw new Problem(kernelProblems.not_found)
        return toPlan(row)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/plans/:id',
      operationId: 'updatePlan',
      summary: 'Change a plan',
      description:
        'Changes the name, description, limits or status, and sends `plan.updated`. New limits bind every live subscription to the plan from now on (resources already beyond them stay; creating more is refused).',
      scope: billingScopes.planManage,
      params: PlanParams,
      body: UpdatePlanBody,
      responses: { 200: { description: 'The plan after the change.', schema: Plan } },
      async handler({ params, body, view, audit, emit }) {
        return context.transaction(async (trx) => {
          const row = await visiblePlans(trx, view).where('id', '=', params.id).executeTakeFirst()
          if (!row) throw new Problem(kernelProblems.not_found)
          const changes: Partial<PlansTable> = {}
          if (body.name !== undefined) changes.name = nonBlank(body.name, 'body.name')
          if (body.description !== undefined) changes.description = body.description?.trim() || null
          if (body.status !== undefined) changes.status = body.status
          if (body.limits !== undefined) {
            const limits: { -readonly [M in keyof QuotaLimits]: number | undefined } = { ...limitsOf(row) }
            for (const metric of quotaMetrics) {
              const value = body.limits[metric]
              if (value !== undefined) limits[metric] = value ?? undefined
            }
            changes.limits = JSON.stringify(checkQuotaLimits(limits))
          }
          if (Object.keys(changes).length === 0) return toPlan(row)
          const updated = await updatePlan(trx, row.id, changes)
          await audit(trx, {
            action: 'plan.update',
            subject: { type: 'plan', id: row.id },
            customerId: null,
            details: {
              ...(changes.name !== undefined ? { name: changes.name } : {}),
              ...(changes.status !== undefined ? { status: changes.status } : {}),
              ...(changes.limits !== undefined ? { limits: limitsOf(updated) } : {}),
            },
          })
          await emit(trx, { kind: 'plan.updated', customerId: null, data: toPlan(updated) })
          return toPlan(updated)
        })
      },
    }),
  ]
}
