// Plan operations, a staff area: platform staff manage every brand's plans, brand staff their own brand's.

import {
  brandDirectoryService,
  brandForRecord,
  defineRoute,
  kernelProblems,
  newId,
  nonBlankText,
  nowIso,
  type PluginContext,
  type Quotas,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { billingScopes, planSchema, planStatuses } from '../contract.ts'
import type { PlansTable } from '../migrations.ts'
import { findVisiblePlan, insertPlan, limitsOf, toPlan, updatePlan, visiblePlans } from '../repository.ts'

const Name = nonBlankText({ maxLength: 100, description: 'Display name; surrounding spaces are trimmed.' })
const Description = t.String({ maxLength: 1000, description: 'What the plan is for.' })

/** The bodies of create and change: their `limits` are the installation's metrics. */
function planBodies(quotas: Pick<Quotas, 'limitsSchema' | 'metrics'>) {
  const limitChange = (metric: string) =>
    t.Optional(
      t.Union([t.Integer({ minimum: 0, maximum: 1_000_000_000 }), t.Null()], {
        description: `New ${metric} limit; null removes it.`,
      }),
    )
  const CreatePlanBody = t.Object(
    {
      name: Name,
      description: t.Optional(Description),
      brandId: t.Optional(
        t.String({
          minLength: 1,
          maxLength: 64,
          description:
            'The brand offering it. Default: the caller’s brand (brand staff) or the default brand.',
        }),
      ),
      limits: t.Optional(quotas.limitsSchema),
    },
    { $id: 'CreatePlanBody' },
  )
  const UpdatePlanBody = t.Object(
    {
      name: t.Optional(Name),
      description: t.Optional(
        t.Union([Description, t.Null()], { description: 'null removes the description.' }),
      ),
      limits: t.Optional(
        t.Object(Object.fromEntries(quotas.metrics.map((metric) => [metric, limitChange(metric)])), {
          description: 'Limits to change; omitted members stay as they are, null ones become unlimited.',
        }),
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
  return { CreatePlanBody, UpdatePlanBody }
}

const ListPlansQuery = t.Object({
  brandId: t.Optional(
    t.String({ maxLength: 64, description: 'Only this brand’s plans (narrows, never widens).' }),
  ),
  status: t.Optional(
    t.Union(
      planStatuses.map((status) => t.Literal(status)),
      {
        description:
          'Only plans in this state: `active` (offered) or `archived` (taking no new subscriptions).',
      },
    ),
  ),
})

/** The plans routes. */
export function planRoutes(context: PluginContext): RouteDefinition[] {
  const brands = context.use(brandDirectoryService)
  const Plan = planSchema(context.quotas)
  const { CreatePlanBody, UpdatePlanBody } = planBodies(context.quotas)

  return [
    defineRoute({
      method: 'POST',
      path: '/plans',
      operationId: 'createPlan',
      idempotent: true,
      summary: 'Create a plan',
      description:
        'Staff only: a plan names the limits its subscribers get, one per metric the installation’s plugins declare (`sites`, `domains`, `diskMB` in the standard installation; an absent limit is unlimited). It is offered to the customers of one brand. `plan.created` is sent with it.',
      scope: billingScopes.planManage,
      body: CreatePlanBody,
      responses: {
        201: { description: 'The new plan.', schema: Plan, headers: { Location: 'URL of the plan.' } },
      },
      problems: [kernelProblems.unknown_brand],
      async handler({ body, caller, audit, emit }) {
        const name = body.name.trim()
        const brandId = await brandForRecord(caller, body.brandId, () => brands, 'default')
        const limits = body.limits ?? {}
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
            brandId,
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
      list: { item: Plan, key: 'plans.id', toItem: toPlan },
      handler({ query, view }) {
        let plans = visiblePlans(context.db, view)
        if (query.brandId !== undefined) plans = plans.where('brand_id', '=', query.brandId)
        if (query.status !== undefined) plans = plans.where('status', '=', query.status)
        return plans
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/plans/:id',
      operationId: 'getPlan',
      summary: 'Read a plan',
      scope: billingScopes.planRead,
      params: { id: 'pln' },
      responses: { 200: { description: 'The plan.', schema: Plan } },
      async handler({ params, view }) {
        return toPlan(await findVisiblePlan(context.db, view, params.id))
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
      params: { id: 'pln' },
      body: UpdatePlanBody,
      responses: { 200: { description: 'The plan after the change.', schema: Plan } },
      async handler({ params, body, view, audit, emit }) {
        return context.transaction(async (trx) => {
          const row = await findVisiblePlan(trx, view, params.id)
          const changes: Partial<PlansTable> = {}
          if (body.name !== undefined) changes.name = body.name.trim()
          if (body.description !== undefined) changes.description = body.description?.trim() || null
          if (body.status !== undefined) changes.status = body.status
          if (body.limits !== undefined) {
            const limits: Record<string, number> = { ...limitsOf(row) }
            for (const [metric, value] of Object.entries(body.limits)) {
              if (value === null) delete limits[metric]
              else if (typeof value === 'number') limits[metric] = value
            }
            changes.limits = JSON.stringify(limits)
          }
          if (Object.keys(changes).length === 0) return toPlan(row)
          const updated = await updatePlan(trx, row.id, changes)
          await audit(trx, {
            action: 'plan.update',
            subject: { type: 'plan', id: row.id },
            customerId: null,
            brandId: row.brand_id,
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
