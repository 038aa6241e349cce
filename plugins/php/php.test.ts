// `php` and `static` sites and a site's PHP as a client sees them: a document root checked at create; a version
// among those the site's node says it has; settings from the allowlist, each refusal with its code at its field,
// capped by the plan; nothing kept of a refused change; a change audited, announced and carried to the node in a
// `site.update` whose spec names the site's serving; another customer's site 404, scopes enforced; a static site
// has no PHP. The test plays a remote node's agent, so it reads what the node is told.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, type OutboxEvent } from '../../core/index.ts'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  filesOnlyNode,
  nodeWithPlayedAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import type { SitePhp } from './contract.ts'

/** A node serving PHP 8.2 and 8.3, with the php plugin's applications. */
const phpNode = {
  ...filesOnlyNode,
  nginx: '1.22.1',
  php: '8.3.4',
  phpVersions: ['8.2', '8.3'],
  unixUsers: true,
  mode: 'serving',
  applications: { php: '8.3', static: '1' },
}

/** Every event the outbox hands over, as a webhook receiver would get them. */
const events: OutboxEvent[] = []
const recorder = definePlugin({
  name: 'php-events',
  version: '1.0.0',
  description: 'Keeps every event the outbox hands over.',
  setup(given) {
    given.consumeEvents({ name: 'php-events', receive: async (_trx, event) => void events.push(event) })
  },
})
let tp: TestPanel
let token: string
let agent: Awaited<ReturnType<typeof nodeWithPlayedAgent>>['agent']

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [recorder],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  agent = (await nodeWithPlayedAgent(tp, token, `php-${crypto.randomUUID().slice(0, 6)}`)).agent
  await agent.poll(phpNode)
})
afterAll(() => tp.panel.close())

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })

async function json<T>(response: Response, status = 200): Promise<T> {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`)
  return (await response.json()) as T
}

const newCustomer = async () =>
  (await json<{ id: string }>(await call('POST', '/customers', { name: 'Acme' }), 201)).id
const domain = () => `php-${crypto.randomUUID().slice(0, 8)}.example.com`

/** A new site of `type` (with `extra` in the body), provisioned on the played node, and its provision command. */
async function activeSite(type: string, extra: Record<string, unknown> = {}, customerId?: string) {
  const owner = customerId ?? (await newCustomer())
  const created = await json<Site & Record<string, unknown>>(
    await call('POST', '/sites', { customerId: owner, name: 'Site', type, domain: domain(), ...extra }),
    201,
  )
  const provision = await agent.command(created.id, 'provision')
  await agent.answer(provision)
  await waitFor('the site to be active', async () =>
    (await json<Site>(await call('GET', `/sites/${created.id}`))).status === 'active' ? true : null,
  )
  return { site: created, provision }
}

/** Answers the site's next `update` (a change's job), so the played node's queue holds nothing unanswered. */
const settle = async (siteId: string) => agent.answer(await agent.command(siteId, 'update'))

describe('php and static sites', () => {
  test('are created with a document root under htdocs/, which their node is told with PHP on or off', async () => {
    const php = await activeSite('php', { php: { root: 'public' } })
    expect(php.site.php).toEqual({ root: 'public' })
    expect(php.provision.payload).toMatchObject({
      type: 'php',
      app: { kind: 'php', settings: {} },
      serving: { php: true, root: 'public' },
    })
    const plain = await activeSite('static', { static: { root: 'web/dist' } })
    expect(plain.provision.payload).toMatchObject({
      app: { kind: 'static' },
      serving: { php: false, root: 'web/dist' },
    })
    // Without the option: htdocs/ itself (no root named).
    const bare = await activeSite('static')
    expect((bare.provision.payload as { serving: object }).serving).toEqual({ php: false })
  })

  test('refuse a document root that could leave htdocs/ or name a hidden folder; nothing is created', async () => {
    const customerId = await newCustomer()
    for (const root of [
      '../etc',
      '/var/www',
      'a/../../b',
      '.git',
      'public/.env',
      'a b',
      'pub;lic',
      'x\ny',
      'ü',
    ]) {
      await expectFieldProblem(
        await call('POST', '/sites', {
          customerId,
          name: 'Bad',
          type: 'php',
          domain: domain(),
          php: { root },
        }),
        422,
        'invalid_document_root',
        'body.php.root',
      )
    }
    const sites = await json<{ items: Site[] }>(await call('GET', `/sites?customerId=${customerId}`))
    expect(sites.items).toEqual([])
  })
})

describe('a site’s PHP', () => {
  test('answers its defaults, the versions its node has and what its plan allows', async () => {
    const { site } = await activeSite('php')
    const php = await json<SitePhp>(await call('GET', `/sites/${site.id}/php`))
    expect(php).toMatchObject({
      siteId: site.id,
      version: '8.3',
      ownVersion: null,
      availableVersions: ['8.2', '8.3'],
      own: [],
      settings: {
        memory_limit: '128M',
        upload_max_filesize: '64M',
        post_max_size: '64M',
        display_errors: false,
      },
      allowed: { memory_limit: { maximum: 8192, cap: null } },
    })
  })

  test('changes in one request, audited and announced, and reaches the node in a site.update', async () => {
    const { site } = await activeSite('php', { php: { root: 'public' } })
    const changed = await json<SitePhp>(
      await call('PATCH', `/sites/${site.id}/php`, {
        version: '8.2',
        settings: { memory_limit: '256m', max_execution_time: 120, display_errors: true },
      }),
    )
    expect(changed).toMatchObject({
      version: '8.2',
      ownVersion: '8.2',
      own: ['memory_limit', 'max_execution_time', 'display_errors'],
      settings: { memory_limit: '256M', max_execution_time: 120, display_errors: true, post_max_size: '64M' },
      jobId: expect.stringMatching(/^job_/),
    })
    const update = await agent.command(site.id, 'update')
    expect(update.payload).toMatchObject({
      serving: {
        php: true,
        root: 'public',
        phpVersion: '8.2',
        phpSettings: { memory_limit: '256M', max_execution_time: '120', display_errors: 'on' },
      },
    })
    await agent.answer(update)
    const audit = await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${site.id}&action=site_php.update`),
    )
    expect(audit.items).toHaveLength(1)
    expect(audit.items[0]?.details).toMatchObject({ version: '8.2', before: { version: null, settings: {} } })
    const event = await waitFor(
      'the event',
      async () =>
        events.find((item) => item.kind === 'site_php.updated' && item.data.siteId === site.id) ?? null,
    )
    expect(event.data).toMatchObject({ version: '8.2' })

    // Null takes the default again; the same request twice changes nothing the second time (no audit entry).
    const reset = { version: null, settings: { memory_limit: null } }
    expect(await json<SitePhp>(await call('PATCH', `/sites/${site.id}/php`, reset))).toMatchObject({
      version: '8.3',
      ownVersion: null,
      own: ['max_execution_time', 'display_errors'],
      settings: { memory_limit: '128M' },
    })
    await agent.answer(await agent.command(site.id, 'update'))
    expect((await json<SitePhp>(await call('PATCH', `/sites/${site.id}/php`, reset))).jobId).toBeNull()
    const after = await json<{ items: unknown[] }>(
      await call('GET', `/audit?subject=${site.id}&action=site_php.update`),
    )
    expect(after.items).toHaveLength(2)
  })

  test('refuses each bad value with its code at its field, and keeps nothing of a refused request', async () => {
    const { site } = await activeSite('php')
    await json(await call('PATCH', `/sites/${site.id}/php`, { settings: { max_input_vars: 3000 } }))
    await settle(site.id)
    const before = await json<SitePhp>(await call('GET', `/sites/${site.id}/php`))
    const patch = (body: unknown) => call('PATCH', `/sites/${site.id}/php`, body)
    await expectFieldProblem(await patch({ version: '7.4' }), 422, 'php_version_unavailable', 'body.version')
    await expectFieldProblem(await patch({ version: '8.2;' }), 422, 'php_version_unavailable', 'body.version')
    for (const value of ['256', '256MB', '-1', '1T', '0M', '256M\n', '$x', '1e3M'])
      await expectFieldProblem(
        await patch({ settings: { memory_limit: value } }),
        422,
        'invalid_php_size',
        'body.settings.memory_limit',
      )
    const outOfRange: [string, unknown][] = [
      ['memory_limit', '8M'],
      ['memory_limit', '9G'],
      ['max_execution_time', 0],
      ['max_execution_time', 3601],
      ['max_input_time', -2],
      ['max_input_vars', 99],
      ['max_file_uploads', 1001],
      ['upload_max_filesize', '512K'],
    ]
    for (const [name, value] of outOfRange)
      await expectFieldProblem(
        await patch({ settings: { [name]: value } }),
        422,
        'php_setting_out_of_range',
        `body.settings.${name}`,
      )
    await expectFieldProblem(
      await patch({ settings: { upload_max_filesize: '128M' } }),
      422,
      'post_max_size_below_upload',
      'body.settings.post_max_size',
    )
    // Names outside the allowlist, and values of the wrong type, are the kernel's validation refusals.
    await expectFieldProblem(
      await patch({ settings: { allow_url_fopen: true } }),
      422,
      'validation_failed',
      'body.settings.allow_url_fopen',
      'unknown_field',
    )
    await expectFieldProblem(
      await patch({ settings: { display_errors: 'on' } }),
      422,
      'validation_failed',
      'body.settings.display_errors',
      'invalid_type',
    )
    // Several at once: every one listed, and the valid version beside them not kept either.
    const several = await expectProblem(
      await patch({ version: '8.2', settings: { memory_limit: 'lots', max_input_vars: 5 } }),
      422,
      'validation_failed',
    )
    expect(several.errors?.map((error) => [error.location, error.code])).toEqual([
      ['body.settings.memory_limit', 'invalid_php_size'],
      ['body.settings.max_input_vars', 'php_setting_out_of_range'],
    ])
    expect(await json<SitePhp>(await call('GET', `/sites/${site.id}/php`))).toEqual(before)
    // A raised upload with its post raised in the same request passes: the pair is checked together.
    expect(
      (await json<SitePhp>(await patch({ settings: { upload_max_filesize: '128M', post_max_size: '130M' } })))
        .settings,
    ).toMatchObject({ upload_max_filesize: '128M', post_max_size: '130M', max_input_vars: 3000 })
    await settle(site.id)
  })

  test('is capped by the customer’s plan, the refusal naming the cap', async () => {
    const customerId = await newCustomer()
    const plan = await json<{ id: string }>(
      await call('POST', '/plans', {
        name: `PHP ${crypto.randomUUID().slice(0, 6)}`,
        limits: { sites: 5 },
        phpSettings: { maxMemoryLimitMB: 512, maxUploadMB: 100 },
      }),
      201,
    )
    await json(await call('POST', '/subscriptions', { customerId, planId: plan.id }), 201)
    const { site } = await activeSite('php', {}, customerId)
    const php = await json<SitePhp>(await call('GET', `/sites/${site.id}/php`))
    expect(php.allowed).toMatchObject({
      memory_limit: { maximum: 512, cap: 'phpSettings.maxMemoryLimitMB' },
      upload_max_filesize: { maximum: 100, cap: 'phpSettings.maxUploadMB' },
      max_execution_time: { maximum: 3600, cap: null },
    })
    const over = await expectProblem(
      await call('PATCH', `/sites/${site.id}/php`, { settings: { memory_limit: '1G' } }),
      422,
      'php_setting_over_plan',
    )
    expect(over.errors).toEqual([
      expect.objectContaining({
        location: 'body.settings.memory_limit',
        message: expect.stringContaining('phpSettings.maxMemoryLimitMB'),
      }),
    ])
    await expectFieldProblem(
      await call('PATCH', `/sites/${site.id}/php`, { settings: { post_max_size: '101M' } }),
      422,
      'php_setting_over_plan',
      'body.settings.post_max_size',
    )
    expect(
      (
        await json<SitePhp>(
          await call('PATCH', `/sites/${site.id}/php`, { settings: { memory_limit: '512M' } }),
        )
      ).settings.memory_limit,
    ).toBe('512M')
    const update = await agent.command(site.id, 'update')
    // What a cap applies to is held whether the site set it or not: its code cannot raise a default past the cap.
    expect(
      (update.payload as { serving: { phpSettings: Record<string, string> } }).serving.phpSettings,
    ).toEqual({
      memory_limit: '512M',
      upload_max_filesize: '64M',
      post_max_size: '64M',
    })
    await agent.answer(update)
    // The plan lowers a cap below what the site set: the site runs at the cap, and says so.
    await json(
      await call('PATCH', `/plans/${plan.id}`, { phpSettings: { maxMemoryLimitMB: 256, maxUploadMB: 100 } }),
    )
    const lowered = await json<SitePhp>(
      await call('PATCH', `/sites/${site.id}/php`, { settings: { display_errors: true } }),
    )
    expect(lowered.settings.memory_limit).toBe('256M')
    const held = await agent.command(site.id, 'update')
    expect(
      (held.payload as { serving: { phpSettings: Record<string, string> } }).serving.phpSettings,
    ).toMatchObject({
      memory_limit: '256M',
      display_errors: 'on',
    })
    await agent.answer(held)
  })

  test('belongs to WordPress and php sites alone: a static site has none', async () => {
    const { site } = await activeSite('static')
    await expectProblem(await call('GET', `/sites/${site.id}/php`), 409, 'site_without_php')
    await expectProblem(
      await call('PATCH', `/sites/${site.id}/php`, { settings: { memory_limit: '256M' } }),
      409,
      'site_without_php',
    )
  })

  test('of another customer’s site is 404; reading takes php:read and changing php:manage', async () => {
    const { site } = await activeSite('php')
    const other = await newCustomer()
    const outsider = await tp.token({ customerId: other })
    await expectProblem(await call('GET', `/sites/${site.id}/php`, undefined, outsider), 404, 'not_found')
    await expectProblem(
      await call('PATCH', `/sites/${site.id}/php`, { settings: { memory_limit: '256M' } }, outsider),
      404,
      'not_found',
    )
    const reader = await tp.token({ scopes: ['php:read'], customerId: site.customerId })
    expect((await call('GET', `/sites/${site.id}/php`, undefined, reader)).status).toBe(200)
    const refused = await call(
      'PATCH',
      `/sites/${site.id}/php`,
      { settings: { memory_limit: '256M' } },
      reader,
    )
    expect(refused.status).toBe(403)
    const neither = await tp.token({ scopes: ['site:read'], customerId: site.customerId })
    expect((await call('GET', `/sites/${site.id}/php`, undefined, neither)).status).toBe(403)
  })
})
