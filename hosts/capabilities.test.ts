// GET /api/v1/capabilities on the standard installation: plugins, site types, event kinds, the caller, the limits.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from './testing/index.ts'

let tp: TestPanel
beforeAll(async () => {
  tp = await createTestPanel({ limits: { bodyBytes: 2048 } })
})
afterAll(() => tp.panel.close())

test('reports the installation, the caller’s effective permissions and the limits in force', async () => {
  const token = await tp.token({ scopes: ['site:read', 'customer:read'] })
  const response = await tp.request('GET', '/api/v1/capabilities', { token })
  expect(response.status).toBe(200)
  const body = (await response.json()) as {
    installation: {
      plugins: { name: string; version: string; capabilities: Record<string, unknown> }[]
      eventKinds: string[]
    }
    caller: { kind: string; scopes: string[]; customerId: string | null }
    limits: Record<string, unknown>
  }
  // In set-up order: the console before the plugins that add pages to it (`enhances`).
  expect(body.installation.plugins.map((plugin) => plugin.name)).toEqual([
    'console',
    'brands',
    'customers',
    'nodes',
    'sites',
    'databases',
    'files',
    'backups',
    'wordpress',
    'php',
    'sftp',
    'shell',
    'cache',
    'certificates',
    'logs',
    'redirects',
    'staging',
    'cron',
    'billing',
    'webhooks',
  ])
  expect(body.installation.plugins.find((plugin) => plugin.name === 'sites')?.capabilities).toEqual({
    siteTypes: [
      {
        name: 'wordpress',
        description:
          'A WordPress site: Debian’s WordPress on nginx and PHP-FPM, with a MariaDB database of its own.',
        requires: ['nginx', 'php', 'wordpress', 'mariadb'],
      },
      expect.objectContaining({ name: 'php', requires: ['nginx', 'php'] }),
      expect.objectContaining({ name: 'static', requires: ['nginx'] }),
    ],
  })
  // Ordering through ACME is on in a standard installation (Let's Encrypt unless the settings say otherwise).
  expect(body.installation.plugins.find((plugin) => plugin.name === 'certificates')?.capabilities).toEqual({
    acme: true,
  })
  expect(body.installation.eventKinds).toEqual([
    'job.finished',
    'customer.created',
    'customer.updated',
    'customer.deleted',
    'node.drifted',
    'site.created',
    'site.updated',
    'site.drifted',
    'site.limitReached',
    'site.deleted',
    'database.created',
    'database.updated',
    'database.deleted',
    'database_user.created',
    'database_user.updated',
    'database_user.deleted',
    'database_user.drifted',
    'backup.completed',
    'backup.failed',
    'backup.restored',
    'site_php.updated',
    'sftp_user.created',
    'sftp_user.updated',
    'sftp_user.deleted',
    'cache.updated',
    'cache.purged',
    'certificate.created',
    'certificate.issued',
    'certificate.renewed',
    'certificate.failed',
    'certificate.expiring',
    'certificate.expired',
    'certificate.deleted',
    'redirect.created',
    'redirect.updated',
    'redirect.deleted',
    'site_headers.updated',
    'site.staged',
    'site.pushed',
    'cron_job.created',
    'cron_job.updated',
    'cron_job.deleted',
    'cron_run.failed',
    'plan.created',
    'plan.updated',
    'plan.deleted',
    'subscription.created',
    'subscription.updated',
    'subscription.suspended',
    'subscription.unsuspended',
    'subscription.cancelled',
  ])
  expect(body.caller).toMatchObject({
    kind: 'platform',
    scopes: ['customer:read', 'site:read'],
    customerId: null,
    quota: null,
  })
  expect(body.limits).toEqual({
    pageSize: { default: 20, max: 100 },
    bodyBytes: 2048,
    uploadBytes: 10 * 1024 ** 3,
    tokenLifetimeDays: { default: 90, max: 365 },
    idempotencyWindowHours: 24,
    rateLimitPerMinute: 1200,
    defaultCustomerLimits: {},
  })
})
