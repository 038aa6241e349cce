// The kernel's test harness: a panel of the given plugins on an in-memory store, with helpers to mint staff and
// tokens, spoken to through fetch. Plugin authors use the testing kit (hosts/testing), which adds the standard
// plugins; the kernel's own tests mount fixtures instead, since core/ may not import plugins.

import { issueApiToken } from '../identity/api-tokens.ts'
import { createUser, findUserByEmail, type User } from '../identity/users.ts'
import { createPanel, type Panel, type PanelOptions } from '../panel/create-panel.ts'
import { defaultLimits } from '../panel/limits.ts'
import type { PluginDefinition } from '../plugin/define-plugin.ts'
import { openTestStore } from './test-store.ts'
import { testPassword } from './users.ts'

/** A panel for tests, with helpers. */
export interface TestPanel {
  readonly panel: Panel
  /** A platform staff user, made once per panel. */
  staff(): Promise<User>
  /** A token of the staff user with these scopes (default `*`), optionally limited to a customer. */
  token(options?: {
    scopes?: readonly string[]
    customerId?: string | null
    expiresAt?: string | null
    user?: User
  }): Promise<string>
  /** Sends a request to the panel: `request('POST', '/api/v1/sites', { token, body })`. */
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>
}

/** What a test panel is made of; everything but the plugins has a default fit for tests. */
export interface KernelTestPanelOptions {
  readonly plugins: readonly PluginDefinition[]
  /**
   * Plugins mounted only when one of `plugins` requires them (directly or through another) and none of `plugins`
   * has their name: the testing kit gives the standard plugins, so a plugin's test mounts what it builds on.
   */
  readonly available?: readonly PluginDefinition[]
  readonly overrides?: readonly PluginDefinition[]
  readonly limits?: PanelOptions['limits']
  /** Login throttle policy; tests lower the delays. */
  readonly loginThrottle?: PanelOptions['loginThrottle']
  /** Rate limits; tests lower them. */
  readonly rateLimits?: PanelOptions['rateLimits']
  /** Job workers; tests shorten the poll interval, lease and backoff. */
  readonly jobs?: PanelOptions['jobs']
  /** The outbox dispatcher; tests shorten its poll interval. */
  readonly events?: PanelOptions['events']
  /** Limits of customers without a subscription; default none. */
  readonly defaultCustomerLimits?: PanelOptions['defaultCustomerLimits']
  /**
   * Fail a request that breaks its route's declaration (a change without an audit entry, a refusal the route does
   * not list). Default true: a test panel holds every route to its contract.
   */
  readonly contractChecks?: boolean
  /**
   * The SQLite file to keep the store in (to reopen it, as an upgrade would; on PostgreSQL, a schema named after
   * it). Two panels given the same path share one store, as two instances of one installation do. Default fresh.
   */
  readonly storePath?: string
  /** The panel secret; default a fixed test secret. */
  readonly secret?: string
}

/**
 * `plugins` and what they require of `available`, transitively (the plugins they build on first). A requirement
 * neither gives is left for the panel's start-up to refuse, naming it.
 */
export function withRequired(
  plugins: readonly PluginDefinition[],
  available: readonly PluginDefinition[],
): PluginDefinition[] {
  const mounted = new Set(plugins.map((plugin) => plugin.name))
  const added: PluginDefinition[] = []
  const pending = [...plugins]
  for (let plugin = pending.shift(); plugin; plugin = pending.shift()) {
    for (const name of plugin.requires ?? []) {
      const found = mounted.has(name) ? undefined : available.find((candidate) => candidate.name === name)
      if (!found) continue
      mounted.add(name)
      added.push(found)
      pending.push(found)
    }
  }
  return [...added, ...plugins]
}

/** Builds a test panel with `plugins` (and `overrides`), on a fresh in-memory store. */
export async function createKernelTestPanel(options: KernelTestPanelOptions): Promise<TestPanel> {
  const panel = await createPanel({
    store: await openTestStore(options.storePath),
    contractChecks: options.contractChecks ?? true,
    plugins: withRequired(options.plugins, options.available ?? []),
    overrides: options.overrides ?? [],
    secret: options.secret ?? 'test-secret-test-secret-test-secret-!',
    limits: options.limits ?? {},
    loginThrottle: options.loginThrottle ?? {},
    rateLimits: options.rateLimits ?? {},
    jobs: options.jobs ?? {},
    events: options.events ?? {},
    defaultCustomerLimits: options.defaultCustomerLimits ?? {},
  })
  let staffUser: Promise<User> | undefined
  const staff = () => {
    // A store reopened from a file (an upgrade test) already has the staff user.
    staffUser ??= findUserByEmail(panel.store.db, 'staff@example.test').then(
      (found) =>
        found ??
        createUser(panel.store.db, {
          email: 'staff@example.test',
          password: testPassword,
          staffRole: 'platform',
        }),
    )
    return staffUser
  }
  return {
    panel,
    staff,
    async token(tokenOptions = {}) {
      const user = tokenOptions.user ?? (await staff())
      const policy = {
        defaultDays: defaultLimits.tokenDefaultLifetimeDays,
        maxDays: defaultLimits.tokenMaxLifetimeDays,
      }
      const issued = await panel.store.transaction((trx) =>
        issueApiToken(
          trx,
          user,
          {
            name: 'test',
            scopes: tokenOptions.scopes ?? ['*'],
            customerId: tokenOptions.customerId ?? null,
            expiresAt: tokenOptions.expiresAt ?? null,
          },
          policy,
        ),
      )
      return issued.token
    },
    request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers }
      if (requestOptions.token) headers.authorization = `Bearer ${requestOptions.token}`
      let body: string | undefined
      if (requestOptions.body !== undefined) {
        body =
          typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body)
        headers['content-type'] ??= 'application/json'
      }
      return panel.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    },
  }
}
