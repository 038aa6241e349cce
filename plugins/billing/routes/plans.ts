// Plan operations, a staff area: platform staff manage every brand's plans, brand staff their own brand's.

import {
  brandDirectoryService,
  brandForRecord,
  enumOf,
  fieldProblem,
  kernelProblems,
  newId,
  nonBlankText,
  nowIso,
  type PlanSettings,
  type PluginContext,
  type QuotaLimits,
  type Quotas,
  type RouteDefinition,
  recorded,
  refuseWhileBlocked,
  resourceRoutes,
  t,
  unchanged,
} from '../../../core/index.ts'
import { billingScopes, planDependents, planSchema, planSettingMembers, planStatuses } from '../contract.ts'
import type { PlansTable } from '../migrations.ts'
import { billingProblems } from '../problems.ts'
import { deletePlan, insertPlan, limitsOf, plans, settingsOf, toPlan, updatePlan } from '../repository.ts'

const Name = nonBlankText({ maxLength: 100, description: 'Display name; surrounding spaces are trimmed.' })
const Description = t.String({ maxLength: 1000, description: 'What the plan is for.' })

/** The bodies of create and change: their `limits` are the installation's metrics. */
function planBodies(quotas: Pick<Quotas, 'limitsSchema' | 'metrics' | 'settings'>) {
  // Each limit's range is the one plans' `limits` declare (a site's `processes` cannot exceed what a node applies).
  const rangeOf = (metric: string) => {
    const declared = quotas.limitsSchema.properties[metric] as
      | { minimum?: number; maximum?: number }
      | undefined
    return { minimum: declared?.minimum ?? 0, maximum: declared?.maximum ?? 1_000_000_000 }
  }
  const limitChange = (metric: string) =>
    t.Optional(
      t.Union([t.Integer(rangeOf(metric)), t.Null()], {
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
      ...planSettingMembers(quotas),
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
        enumOf(planStatuses, {
          description: '`archived` stops new subscriptions; `active` takes them again.',
        }),
      ),
      ...Object.fromEntries(
        quotas.settings.map((setting) => [
          setting.name,
          t.Optional(
            t.Union([setting.schema, t.Null()], { description: `${setting.description} null removes it.` }),
          ),
        ]),
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
    enumOf(planStatuses, {
      description:
        'Only plans in this state: `active` (offered) or `archived` (taking no new subscriptions).',
    }),
  ),
})

/** The plans routes. */
export function planRoutes(context: PluginContext): RouteDefinition[] {
  const brands = context.use(brandDirectoryService)
  const Plan = planSchema(context.quotas)
  const { CreatePlanBody, UpdatePlanBody } = planBodies(context.quotas)
  const dependents = context.extensionPoint(planDependents)

  return resourceRoutes({
    item: Plan,
    name: 'plan',
    path: '/plans',
    key: { id: 'pln' },
    scopes: { read: billingScopes.planRead, manage: billingScopes.planManage },
    table: { rows: plans, toItem: toPlan },
    list: {
      summary: 'List plans',
      description: 'Every plan for platform staff, their brand’s for brand staff; oldest first.',
      query: ListPlansQuery,
      filters: { brandId: 'brand_id', status: 'status' },
      key: 'plans.id',
    },
    read: { summary: 'Read a plan' },
    create: {
      summary: 'Create a plan',
      description:
        'Staff only: a plan names the limits its subscribers get, one per metric the installation’s plugins declare (`sites`, `domains`, `diskMB` in the standard installation; an absent limit is unlimited). It is offered to the customers of one brand. `plan.created` is sent with it.',
      body: CreatePlanBody,
      problems: [kernelProblems.unknown_brand],
      record: { details: ({ name, brandId, limits }) => ({ name, brandId, limits }) },
      // The brand is looked up outside the transaction: the brands plugin reads through its own connection.
      prepare: ({ caller, body }) => brandForRecord(caller, body.brandId, () => brands, 'default'),
      async handler({ trx, body, prepared: brandId }) {
        // Again in the transaction, so a brand deleted meanwhile is seen (its deletion counts its plans).
        if (!(await brands.findBrand(brandId, trx)))
          throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
        const now = nowIso()
        const row: PlansTable = {
          id: newId('pln'),
          brand_id: brandId,
          name: body.name.trim(),
          description: body.description?.trim() || null,
          limits: JSON.stringify(body.limits ?? {}),
          settings: JSON.stringify(givenSettings(context.quotas, body)),
          status: 'active',
          created_at: now,
          updated_at: now,
        }
        await insertPlan(trx, row)
        return toPlan(row)
      },
    },
    update: {
      summary: 'Change a plan',
      description:
        'Changes the name, description, limits or status, and sends `plan.updated`. New limits bind every live subscription to the plan from now on (resources already beyond them stay; creating more is refused).',
      body: UpdatePlanBody,
      async handler({ trx, row, body }) {
        const changes: Partial<PlansTable> = {}
        if (body.name !== undefined) changes.name = body.name.trim()
        if (body.description !== undefined) changes.description = body.description?.trim() || null
        if (body.status !== undefined) changes.status = body.status
        if (body.limits !== undefined)
          changes.limits = JSON.stringify(changedLimits(limitsOf(row), body.limits))
        const settings = changedSettings(context.quotas, settingsOf(row), body)
        if (settings !== null) changes.settings = JSON.stringify(settings)
        if (Object.keys(changes).length === 0) return unchanged(toPlan(row))
        const updated = await updatePlan(trx, row.id, changes)
        return recorded(toPlan(updated), {
          details: {
            ...(changes.name !== undefined ? { name: changes.name } : {}),
            ...(changes.status !== undefined ? { status: changes.status } : {}),
            ...(changes.limits !== undefined ? { limits: limitsOf(updated) } : {}),
            ...(changes.settings !== undefined ? settingsOf(updated) : {}),
          },
        })
      },
    },
    remove: {
      summary: 'Delete a plan',
      description:
        'Only once no subscription holds it: refused with 409 `plan_in_use` (naming the `blockers`) while a subscription to it is `active`, `past_due`, `suspended`, or cancelled with its customer’s resources not yet removed. Subscriptions that ended keep its id. Sends `plan.deleted`; the plan then answers 404.',
      problems: [billingProblems.plan_in_use],
      async handler({ trx, row }) {
        const plan = toPlan(row)
        await refuseWhileBlocked(dependents, trx, plan, billingProblems.plan_in_use, 'The plan')
        await deletePlan(trx, row.id)
        return recorded(plan, { details: { name: plan.name } })
      },
    },
  })
}

/** A plan's limits after a change: a number sets a limit, null removes it, an absent metric stays. */
function changedLimits(current: QuotaLimits, change: Readonly<Record<string, number | null | undefined>>) {
  const limits: Record<string, number> = { ...current }
  for (const [metric, value] of Object.entries(change)) {
    if (value === null) delete limits[metric]
    else if (typeof value === 'number') limits[metric] = value
  }
  return limits
}

/** The settings a create body gives (`php`, …): the declared ones present in it. */
function givenSettings(
  quotas: Pick<Quotas, 'settings'>,
  body: Readonly<Record<string, unknown>>,
): PlanSettings {
  const given: Record<string, unknown> = {}
  for (const setting of quotas.settings)
    if (body[setting.name] !== undefined && body[setting.name] !== null)
      given[setting.name] = body[setting.name]
  return given
}

/** A plan's settings after a change (a value sets one, null removes it), or null when the body changes none. */
function changedSettings(
  quotas: Pick<Quotas, 'settings'>,
  current: PlanSettings,
  body: Readonly<Record<string, unknown>>,
): PlanSettings | null {
  const settings: Record<string, unknown> = { ...current }
  let changed = false
  for (const { name } of quotas.settings) {
    const value = body[name]
    if (value === undefined) continue
    changed ||= JSON.stringify(value) !== JSON.stringify(current[name] ?? null)
    if (value === null) delete settings[name]
    else settings[name] = value
  }
  return changed ? settings : null
}
