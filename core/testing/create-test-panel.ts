// The test harness: a panel on an in-memory store, with helpers to mint staff and tokens, spoken to through fetch.

import { issueApiToken } from '../identity/api-tokens.ts'
import { createUser, type User } from '../identity/users.ts'
import { createPanel, type Panel, type PanelOptions } from '../panel/create-panel.ts'
import { defaultLimits } from '../panel/limits.ts'
import type { PluginDefinition } from '../plugin/define-plugin.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
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

/** Builds a test panel with `plugins` (and `overrides`), on a fresh in-memory store. */
export async function createTestPanel(options: {
  plugins: readonly PluginDefinition[]
  overrides?: readonly PluginDefinition[]
  limits?: PanelOptions['limits']
  /** Login throttle policy; tests lower the delays. */
  loginThrottle?: PanelOptions['loginThrottle']
  /** Rate limits; tests lower them. */
  rateLimits?: PanelOptions['rateLimits']
  /** Job workers; tests shorten the poll interval, lease and backoff. */
  jobs?: PanelOptions['jobs']
  /** The outbox dispatcher; tests shorten its poll interval. */
  events?: PanelOptions['events']
  /** Limits of customers without a subscription; default none. */
  defaultCustomerLimits?: PanelOptions['defaultCustomerLimits']
}): Promise<TestPanel> {
  const panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins: options.plugins,
    overrides: options.overrides ?? [],
    secret: 'test-secret-test-secret-test-secret-!',
    limits: options.limits ?? {},
    loginThrottle: options.loginThrottle ?? {},
    rateLimits: options.rateLimits ?? {},
    jobs: options.jobs ?? {},
    events: options.events ?? {},
    defaultCustomerLimits: options.defaultCustomerLimits ?? {},
  })
  let staffUser: Promise<User> | undefined
  const staff = () => {
    staffUser ??= createUser(panel.store.db, {
      email: 'staff@example.test',
      password: testPassword,
      staffRole: 'platform',
    })
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
