// A site's CPU, memory and process limits as a client sees them: each the site's own (staff's), else its plan's,
// else its node's defaults; only platform staff set a site's own; every change reaches the node in a `site.update`
// with the limits in force; what the site uses is asked of its node live; and a site that keeps hitting a limit is
// told once (`site.limitReached`), not again within the cooldown. The test plays a remote node's agent, so it says
// what the node answers (its resources, their hits) on cue.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, type OutboxEvent, type PluginContext } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  nodeWithPlayedAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from './contract.ts'
import { startLimitsCheck } from './limits-check.ts'

/** The test's hold on a plugin context, to start the limits check when the test says. */
let context: PluginContext | undefined
const contextHolder = definePlugin({
  name: 'limits-test',
  version: '1.0.0',
  description: 'Lends the test a plugin context.',
  setup(given) {
    context = given
  },
})

/** Every event the outbox hands over, as a webhook receiver would get them. */
const events: OutboxEvent[] = []
const recorder = definePlugin({
  name: 'limits-events',
  version: '1.0.0',
  description: 'Keeps every event the outbox hands over.',
  setup(given) {
    given.consumeEvents({ name: 'limits-events', receive: async (_trx, event) => void events.push(event) })
  },
})

let tp: TestPanel
let token: string
let agent: Awaited<ReturnType<typeof nodeWithPlayedAgent>>['agent']
let nodeId: string

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [contextHolder, recorder],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  const played = await nodeWithPlayedAgent(tp, token, `limits-${crypto.randomUUID().slice(0, 6)}`)
  agent = played.agent
  nodeId = played.nodeId
})
afterAll(() => tp.panel.close())

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })

type AgentCommand = Awaited<ReturnType<typeof agent.command>>

/** The customers, plans and subscriptions the tests make, through the API. */
const calls = {
  async newCustomer(): Promise<string> {
    return (await json<{ id: string }>(await call('POST', '/customers', { name: 'Acme' }), 201)).id
  },
  async newPlan(
    limits: Record<string, number>,
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string }> {
    const name = `Plan ${crypto.randomUUID().slice(0, 8)}`
    return json<{ id: string }>(await call('POST', '/plans', { name, limits, ...extra }), 201)
  },
  async subscribe(customerId: string, planId: string): Promise<void> {
    await json(await call('POST', '/subscriptions', { customerId, planId }), 201)
  },
}

async function json<T>(response: Response, status = 200): Promise<T> {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`)
  return (await response.json()) as T
}

/** An active site of a new customer (subscribed to a plan with `limits` when given), on the played node. */
async function activeSite(
  planLimits?: Record<string, number>,
  plan: Record<string, unknown> = {},
  onProvision: (command: AgentCommand) => void = () => {},
): Promise<Site> {
  const customerId = await calls.newCustomer()
  if (planLimits) await calls.subscribe(customerId, (await calls.newPlan(planLimits, plan)).id)
  const domain = `limits-${crypto.randomUUID().slice(0, 8)}.example.com`
  const site = await json<Site>(
    await call('POST', '/sites', { customerId, name: 'Limited', type: 'wordpress', domain }),
    201,
  )
  const provision = await agent.command(site.id, 'provision')
  onProvision(provision)
  await agent.answer(provision)
  return waitFor('the site to be active', async () => {
    const read = await json<Site>(await call('GET', `/sites/${site.id}`))
    return read.status === 'active' ? read : null
  })
}

interface LimitsAnswer {
  siteId: string
  cpuPercent: { value: number | null; source: string }
  memoryMB: { value: number | null; source: string }
  processes: { value: number | null; source: string }
  diskMB: { value: number | null; source: string }
  allowFunctions: string[]
}

/** Answers the site's next `update` command and answers its payload. */
async function nextUpdate(siteId: string): Promise<AgentCommand> {
  const command = await agent.command(siteId, 'update')
  await agent.answer(command)
  return command
}

/** Starts the limits check of the played node. */
async function checkLimits(): Promise<void> {
  const held = context
  if (!held) throw new Error('no context')
  await held.transaction((trx) => startLimitsCheck(trx, held, nodeId))
}

describe('the limits a site runs under', () => {
  test('come from the site, else its plan, else its node’s defaults, each saying where from', async () => {
    const site = await activeSite({ cpuPercent: 150, memoryMB: 512 })
    const limits = await json<LimitsAnswer>(await call('GET', `/sites/${site.id}/limits`))
    expect(limits).toEqual({
      siteId: site.id,
      cpuPercent: { value: 150, source: 'plan' },
      memoryMB: { value: 512, source: 'plan' },
      processes: { value: 128, source: 'node' },
      diskMB: { value: null, source: 'none' },
      allowFunctions: [],
    })
    expect(site.limits).toEqual({ diskMB: null, cpuPercent: null, memoryMB: null, processes: null })

    const patched = await json<Site>(await call('PATCH', `/sites/${site.id}`, { limits: { memoryMB: 2048 } }))
    expect(patched.limits).toMatchObject({ memoryMB: 2048, cpuPercent: null })
    const update = await nextUpdate(site.id)
    expect(update.payload).toMatchObject({ cpuPercent: 150, memoryMB: 2048, processes: 128 })
    expect((await json<LimitsAnswer>(await call('GET', `/sites/${site.id}/limits`))).memoryMB).toEqual({
      value: 2048,
      source: 'site',
    })

    // Null gives the site's own back: its plan's applies again.
    await json<Site>(await call('PATCH', `/sites/${site.id}`, { limits: { memoryMB: null } }))
    expect((await nextUpdate(site.id)).payload).toMatchObject({ memoryMB: 512 })
    const audit = await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${site.id}&action=site.update`),
    )
    expect(audit.items.map((entry) => entry.details)).toEqual([{ memoryMB: null }, { memoryMB: 2048 }])
  })

  test('with several plans, are the largest a plan sets: a plan that sets none (an add-on) lowers nothing', async () => {
    const site = await activeSite({ cpuPercent: 400, memoryMB: 4096 })
    await calls.subscribe(site.customerId, (await calls.newPlan({ sites: 5 })).id)
    await calls.subscribe(site.customerId, (await calls.newPlan({ cpuPercent: 200, processes: 300 })).id)
    const limits = await json<LimitsAnswer>(await call('GET', `/sites/${site.id}/limits`))
    expect(limits).toMatchObject({
      cpuPercent: { value: 400, source: 'plan' },
      memoryMB: { value: 4096, source: 'plan' },
      processes: { value: 300, source: 'plan' },
    })
  })

  test('without a plan or a node default, a limit is none: unlimited on the node', async () => {
    const site = await activeSite()
    const provisioned = await json<LimitsAnswer>(await call('GET', `/sites/${site.id}/limits`))
    expect(provisioned.cpuPercent).toEqual({ value: 100, source: 'node' })
    await json(await call('PATCH', `/nodes/${nodeId}`, { siteDefaults: { cpuPercent: null } }))
    try {
      // The node's change reaches its sites through the limits check, as a site.update each.
      const update = await nextUpdate(site.id)
      expect(update.payload).toMatchObject({ cpuPercent: null, memoryMB: 1024, processes: 128 })
      // Then it reads what the node's sites use.
      await answerResources([])
      expect((await json<LimitsAnswer>(await call('GET', `/sites/${site.id}/limits`))).cpuPercent).toEqual({
        value: null,
        source: 'none',
      })
      const applied = await json<{ items: { details: Record<string, unknown> }[] }>(
        await call('GET', `/audit?subject=${site.id}&action=site.applyLimits`),
      )
      expect(applied.items[0]?.details).toMatchObject({
        cpuPercent: null,
        sources: { cpuPercent: 'none', memoryMB: 'node', processes: 'node' },
      })
    } finally {
      await json(await call('PATCH', `/nodes/${nodeId}`, { siteDefaults: { cpuPercent: 100 } }))
      await nextUpdate(site.id)
      await answerResources([])
    }
  })

  test('a plan’s change reaches its sites at the next limits check, and only those whose limits changed', async () => {
    const site = await activeSite({ processes: 40 })
    const plans = await json<{ items: { id: string; limits: Record<string, number> }[] }>(
      await call('GET', '/plans?limit=100'),
    )
    const plan = plans.items.find((item) => item.limits.processes === 40)
    expect(plan).toBeDefined()
    await json(await call('PATCH', `/plans/${plan?.id}`, { limits: { processes: 60 } }))
    await checkLimits()
    expect((await nextUpdate(site.id)).payload).toMatchObject({ processes: 60, cpuPercent: 100 })
    await answerResources([])
    // Only the site whose limits changed: the others' node has them already.
    expect((await checkEnded()).result).toMatchObject({ updates: 1, unread: [] })
  })
})

describe('the PHP functions a plan allows', () => {
  test('reach its sites’ nodes, and a change of them at the next limits check', async () => {
    let provisioned: AgentCommand | undefined
    const site = await activeSite({}, { php: { allowFunctions: ['proc_open', 'exec'] } }, (command) => {
      provisioned = command
    })
    expect(provisioned?.payload).toMatchObject({ allowFunctions: ['exec', 'proc_open'] })
    expect(
      (await json<{ allowFunctions: string[] }>(await call('GET', `/sites/${site.id}/limits`)))
        .allowFunctions,
    ).toEqual(['exec', 'proc_open'])
    const plans = await json<{ items: { id: string; php?: { allowFunctions: string[] } }[] }>(
      await call('GET', '/plans?limit=100'),
    )
    const plan = plans.items.find((item) => item.php?.allowFunctions.includes('proc_open'))
    expect(plan?.php).toEqual({ allowFunctions: ['proc_open', 'exec'] })
    await json(await call('PATCH', `/plans/${plan?.id}`, { php: { allowFunctions: ['shell_exec'] } }))
    await checkLimits()
    expect((await nextUpdate(site.id)).payload).toMatchObject({ allowFunctions: ['shell_exec'] })
    await answerResources([])
    await json(await call('PATCH', `/plans/${plan?.id}`, { php: null }))
    expect((await json<{ php?: unknown }>(await call('GET', `/plans/${plan?.id}`))).php).toBeUndefined()
  })

  test('are PHP function names, refused at the field otherwise', async () => {
    const body = await expectProblem(
      await call('POST', '/plans', { name: 'Bad PHP', php: { allowFunctions: ['exec', 'system; rm'] } }),
      422,
      'validation_failed',
    )
    expect(body.errors).toEqual([expect.objectContaining({ location: 'body.php.allowFunctions.1' })])
  })
})

describe('a site’s own limits', () => {
  test('are platform staff’s alone: a customer’s caller and brand staff are refused, and nothing changes', async () => {
    const site = await activeSite()
    const limited = await tp.token({ customerId: site.customerId })
    const refused = await expectProblem(
      await call('PATCH', `/sites/${site.id}`, { name: 'Renamed', limits: { cpuPercent: 400 } }, limited),
      403,
      'limit_override_staff_only',
    )
    expect(refused).toMatchObject({ fields: ['body.limits.cpuPercent'] })
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: `brand-${crypto.randomUUID().slice(0, 6)}@example.com`,
      staffRole: 'brand',
      brandId: (await json<{ brandId: string }>(await call('GET', `/customers/${site.customerId}`))).brandId,
    })
    await expectProblem(
      await call(
        'PATCH',
        `/sites/${site.id}`,
        { limits: { processes: 9 } },
        await tp.token({ user: brandStaff }),
      ),
      403,
      'limit_override_staff_only',
    )
    expect(await json<Site>(await call('GET', `/sites/${site.id}`))).toMatchObject({
      name: site.name,
      limits: { cpuPercent: null, processes: null },
    })
    // Its disk quota stays the customer's to set, within its plan.
    expect(
      (await json<Site>(await call('PATCH', `/sites/${site.id}`, { limits: { diskMB: 300 } }, limited)))
        .limits.diskMB,
    ).toBe(300)
    await nextUpdate(site.id)
  })

  test('of a site outside the caller’s view are 404, as any change of it, not a refusal that answers for it', async () => {
    const site = await activeSite()
    const other = await tp.token({ customerId: await calls.newCustomer() })
    await expectProblem(
      await call('PATCH', `/sites/${site.id}`, { limits: { cpuPercent: 400 } }, other),
      404,
      'not_found',
    )
    await expectProblem(
      await call('PATCH', '/sites/site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', { limits: { cpuPercent: 400 } }, other),
      404,
      'not_found',
    )
  })

  test('out of range is refused at the field, with its code', async () => {
    const site = await activeSite()
    for (const [field, value] of [
      ['cpuPercent', 0],
      ['memoryMB', 8],
      ['processes', 1.5],
    ] as const) {
      const body = await expectProblem(
        await call('PATCH', `/sites/${site.id}`, { limits: { [field]: value } }),
        422,
        'validation_failed',
      )
      // The reason is the value's (a bound a client can read), not that of the member's `null` alternative.
      expect(body.errors).toEqual([
        expect.objectContaining({
          location: `body.limits.${field}`,
          code: field === 'processes' ? 'invalid_type' : 'out_of_range',
        }),
      ])
    }
  })

  test('a node’s defaults are refused out of range at their field, and read back', async () => {
    const body = await expectProblem(
      await call('PATCH', `/nodes/${nodeId}`, { siteDefaults: { memoryMB: 0 } }),
      422,
      'validation_failed',
    )
    expect(body.errors).toEqual([expect.objectContaining({ location: 'body.siteDefaults.memoryMB' })])
    expect(
      (await json<{ siteDefaults: unknown }>(await call('GET', `/nodes/${nodeId}`))).siteDefaults,
    ).toEqual({
      cpuPercent: 100,
      memoryMB: 1024,
      processes: 128,
    })
  })
})

describe('limits no node can apply', () => {
  // A node writes a limit into the kernel as it is given (pids.max refuses more than 4194304, memory.max 0 leaves a
  // site nothing to run with): a plan or a node default the site's own limits refuse would fail every update there.
  const outOfRange = [
    ['cpuPercent', 0],
    ['memoryMB', 0],
    ['memoryMB', 8],
    ['processes', 0],
    ['processes', 4_194_305],
  ] as const

  test('are refused in a plan at the member, and the plan keeps its limits', async () => {
    for (const [field, value] of outOfRange) {
      const body = await expectProblem(
        await call('POST', '/plans', {
          name: `Plan ${crypto.randomUUID().slice(0, 8)}`,
          limits: { [field]: value },
        }),
        422,
        'validation_failed',
      )
      expect(body.errors).toEqual([expect.objectContaining({ location: `body.limits.${field}` })])
    }
    const plan = await calls.newPlan({ cpuPercent: 200, memoryMB: 2048, processes: 64 })
    for (const [field, value] of outOfRange)
      await expectProblem(
        await call('PATCH', `/plans/${plan.id}`, { limits: { [field]: value } }),
        422,
        'validation_failed',
      )
    expect((await json<{ limits: unknown }>(await call('GET', `/plans/${plan.id}`))).limits).toEqual({
      cpuPercent: 200,
      memoryMB: 2048,
      processes: 64,
    })
  })

  test('are refused as a node’s defaults at the member, and the node keeps its defaults', async () => {
    const spare = await spareNode()
    for (const [field, value] of outOfRange) {
      const body = await expectProblem(
        await call('PATCH', `/nodes/${spare}`, { siteDefaults: { [field]: value } }),
        422,
        'validation_failed',
      )
      expect(body.errors).toEqual([expect.objectContaining({ location: `body.siteDefaults.${field}` })])
    }
    expect(
      (await json<{ siteDefaults: unknown }>(await call('GET', `/nodes/${spare}`))).siteDefaults,
    ).toEqual({
      cpuPercent: 100,
      memoryMB: 1024,
      processes: 128,
    })
  })
})

describe('a change of a node’s defaults', () => {
  test('is audited as `node.update` under the API’s names', async () => {
    const spare = await spareNode()
    await json(await call('PATCH', `/nodes/${spare}`, { siteDefaults: { processes: 96, memoryMB: null } }))
    const audit = await json<{ items: { action: string; details: unknown }[] }>(
      await call('GET', `/audit?subject=${spare}&limit=1`),
    )
    expect(audit.items[0]).toMatchObject({
      action: 'node.update',
      details: { siteDefaults: { processes: 96, memoryMB: null } },
    })
    expect(JSON.stringify(audit.items[0]?.details)).not.toContain('site_')
  })
})

/** A node that takes no sites (disabled), so a change of its defaults moves none of the tests' sites. */
async function spareNode(): Promise<string> {
  const name = `spare-${crypto.randomUUID().slice(0, 6)}`
  const created = await json<{ id: string }>(
    await call('POST', '/nodes', {
      name,
      driver: 'agent',
      hostname: `${name}.example.net`,
      status: 'disabled',
    }),
    201,
  )
  return created.id
}

/** The node's reading of one site, as an agent answers the `resources` operation. */
function reading(siteId: string, memoryHits: number) {
  const use = (used: number, limit: number | null, hits24h = 0) => ({ used, limit, hits24h, enforced: true })
  return {
    siteId,
    at: new Date().toISOString(),
    cpu: use(37.5, 100),
    memory: use(300 * 1024 * 1024, 1024 * 1024 * 1024, memoryHits),
    processes: use(12, 128),
    disk: { ...use(5 * 1024 * 1024, null), enforced: false },
  }
}

/** Answers the next `resources` command with `answer` (a list of readings, or a failure). */
async function answerResources(answer: unknown[] | { code: string; message: string }): Promise<AgentCommand> {
  const command = await waitFor(
    'the resources command',
    async () => (await agent.poll(undefined, 1)).find((item) => item.operation === 'resources') ?? null,
  )
  if (Array.isArray(answer)) await agent.answer(command, null, answer)
  else await agent.answer(command, answer)
  return command
}

/** The limits check's job after it ended. */
async function checkEnded(): Promise<Record<string, unknown>> {
  return waitFor('the limits check to end', async () => {
    const jobs = await json<{ items: { kind: string; status: string; result: Record<string, unknown> }[] }>(
      await call('GET', '/jobs?limit=5'),
    )
    const latest = jobs.items.find((job) => job.kind === 'site.limitsCheck')
    return latest && latest.status !== 'queued' && latest.status !== 'running' ? latest : null
  })
}

describe('what a site uses', () => {
  test('is asked of its node live, in the API’s units, against the limits it runs under', async () => {
    const site = await activeSite({ memoryMB: 1024 })
    const asked = call('GET', `/sites/${site.id}/resources`)
    const command = await answerResources([reading(site.id, 3)])
    expect(command.payload).toEqual({ siteIds: [site.id] })
    expect(await json(await asked)).toEqual({
      siteId: site.id,
      at: expect.any(String),
      cpu: { used: 37.5, limit: 100, source: 'node', hits24h: 0, enforced: true, unit: 'percent' },
      memory: { used: 300, limit: 1024, source: 'plan', hits24h: 3, enforced: true, unit: 'MB' },
      processes: { used: 12, limit: 128, source: 'node', hits24h: 0, enforced: true, unit: 'processes' },
      disk: { used: 5, limit: null, source: 'none', hits24h: 0, enforced: false, unit: 'MB' },
    })
  })

  test('is 503 with a code when the node cannot say, and other customers’ callers see no site', async () => {
    const site = await activeSite()
    const asked = call('GET', `/sites/${site.id}/resources`)
    await answerResources({ code: 'group_unreadable', message: 'no cgroup here' })
    await expectProblem(await asked, 503, 'resources_unreported')
    const other = await tp.token({ customerId: await calls.newCustomer() })
    await expectProblem(await call('GET', `/sites/${site.id}/resources`, undefined, other), 404, 'not_found')
    await expectProblem(await call('GET', `/sites/${site.id}/limits`, undefined, other), 404, 'not_found')
  })
})

describe('a site its node does not run', () => {
  test('is 409 `site_not_ready` with its status, the node not asked', async () => {
    const customerId = await calls.newCustomer()
    const domain = `limits-${crypto.randomUUID().slice(0, 8)}.example.com`
    const site = await json<Site>(
      await call('POST', '/sites', { customerId, name: 'Limited', type: 'wordpress', domain }),
      201,
    )
    const answer = await expectProblem(
      await call('GET', `/sites/${site.id}/resources`),
      409,
      'site_not_ready',
    )
    expect((answer as { siteStatus?: string }).siteStatus).toBe('provisioning')
    await agent.answer(await agent.command(site.id, 'provision'))
  })
})

describe('a node’s answer', () => {
  test('that is not a reading of the site is 503 `resources_unreported`, never a 500 nor an answer off its schema', async () => {
    const site = await activeSite()
    const good = reading(site.id, 0)
    for (const bad of [
      { siteId: site.id, at: 'now', cpu: null },
      { ...good, memory: { used: 'lots', limit: null, hits24h: 1, enforced: true } },
      { ...good, disk: { ...good.disk, enforced: 'yes' } },
      { ...good, processes: { ...good.processes, hits24h: -3 } },
      { ...good, cpu: { ...good.cpu, hits24h: 1e300 } },
      { ...good, at: 'yesterday' },
    ]) {
      const asked = call('GET', `/sites/${site.id}/resources`)
      await answerResources([bad])
      await expectProblem(await asked, 503, 'resources_unreported')
    }
  })
})

describe('the limits check', () => {
  test('passes over a node whose agent is away at once: no reading waited out, no update left to wait for it', async () => {
    const site = await activeSite()
    // Its plan changes its limits: the check has an update to send its node.
    await calls.subscribe(site.customerId, (await calls.newPlan({ cpuPercent: 300 })).id)
    const seen = (at: string) =>
      tp.panel.store.db
        .withTables<{ nodes: { id: string; agent_seen_at: string | null } }>()
        .updateTable('nodes')
        .set({ agent_seen_at: at })
        .where('id', '=', nodeId)
        .execute()
    await seen(new Date(Date.now() - 120_000).toISOString())
    try {
      const started = Date.now()
      await checkLimits()
      const ended = await checkEnded()
      expect(ended).toMatchObject({ status: 'succeeded', result: { updates: 0, unread: [nodeId] } })
      expect(Date.now() - started).toBeLessThan(3_000)
      expect((await json<Site>(await call('GET', `/sites/${site.id}`))).jobId).toBe(site.jobId)
    } finally {
      await seen(new Date().toISOString())
    }
    // Back, it is sent them at the next round. (The played agent answers whatever else its return brings.)
    await checkLimits()
    const answered = new Set<string>()
    const update = await waitFor('the site’s update', async () => {
      for (const command of await agent.poll(undefined, 1)) {
        if (answered.has(command.id)) continue
        answered.add(command.id)
        if (command.operation === 'inventory')
          await agent.answer(command, { code: 'not_played', message: 'The played agent keeps no inventory.' })
        else await agent.answer(command, null, command.operation === 'resources' ? [] : undefined)
        if (command.subject === site.id && command.operation === 'update') return command
      }
      return null
    })
    expect(update.payload).toMatchObject({ cpuPercent: 300 })
  })
})

describe('a site that keeps hitting a limit', () => {
  test('is told once when its hits grew at consecutive readings, and not again within the cooldown', async () => {
    const site = await activeSite()
    const told = () =>
      events.filter((event) => event.kind === 'site.limitReached' && event.data.siteId === site.id)
    for (const hits of [2, 5, 9]) {
      await checkLimits()
      await answerResources([reading(site.id, hits)])
      await checkEnded()
    }
    const event = await waitFor('site.limitReached', () => told()[0])
    expect(event.customerId).toBe(site.customerId)
    expect(event.data).toEqual({
      siteId: site.id,
      customerId: site.customerId,
      kind: 'memory',
      hits24h: 9,
      limit: 1024,
    })
    // Still growing, but within 6 hours of the last time it was told.
    for (const hits of [14, 20]) {
      await checkLimits()
      await answerResources([reading(site.id, hits)])
      expect((await checkEnded()).result).toMatchObject({ told: 0 })
    }
    await Bun.sleep(100)
    expect(told()).toHaveLength(1)
  })
})
