// The kernel's own areas, as internal plugins resolved like any other: their scopes, problems, events and routes
// join the catalogue and the document the same way a plugin's do, and their names are taken.

import { auditRoutes, auditScopes } from '../audit/audit-routes.ts'
import { identityRoutes, userProblems, userScopes } from '../identity/routes/index.ts'
import { tokenRequestProblems } from '../identity/token-request-problems.ts'
import { ownedTeams, userDeletionProblems, userDependents } from '../identity/user-deletion.ts'
import { jobProblems, jobRoutes, jobScopes } from '../jobs/job-routes.ts'
import { Job } from '../jobs/job-schema.ts'
import { definePlugin, type PluginDefinition } from '../plugin/define-plugin.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { brandDirectoryService, tenantDirectoryService } from '../tenancy/tenant-view.ts'
import { usageRoutes } from '../usage/usage-routes.ts'
import { kernelVersion } from '../version.ts'
import { capabilitiesRoutes } from './capabilities-routes.ts'
import type { KernelInternals } from './kernel-internals.ts'
import { kernelMigrations } from './kernel-migrations.ts'
import { metricsProblems } from './metrics.ts'

const version = kernelVersion

/** The kernel's areas, in the order they are mounted, before every plugin. */
export function kernelAreas(kernel: KernelInternals): PluginDefinition[] {
  return [
    definePlugin({
      name: 'kernel',
      version,
      description: 'Health, readiness and the refusals every operation can give.',
      problems: { ...kernelProblems, ...metricsProblems },
      migrations: kernelMigrations,
    }),
    definePlugin({
      name: 'identity',
      version,
      description: 'Signing in, the caller, API tokens, sessions, users and staff.',
      scopes: userScopes,
      problems: { ...userProblems, ...userDeletionProblems, ...tokenRequestProblems },
      extensionPoints: [userDependents],
      setup: (context) => void context.extensionPoint(userDependents).add(ownedTeams),
      routes: (context) =>
        identityRoutes({
          store: kernel.store,
          secret: kernel.secret,
          limits: kernel.limits,
          scopes: kernel.catalogue().scopeNames,
          throttle: kernel.throttle,
          tenantDirectory: () => kernel.service(tenantDirectoryService),
          brandDirectory: () => kernel.service(brandDirectoryService),
          userDependents: context.extensionPoint(userDependents),
        }),
    }),
    definePlugin({
      name: 'audit',
      version,
      description: 'The audit log: who changed what, when and from where.',
      scopes: auditScopes,
      routes: () => auditRoutes(kernel.store),
    }),
    definePlugin({
      name: 'jobs',
      version,
      description: 'Background work (provisioning, deletion, ...): status, progress, cancelling.',
      scopes: jobScopes,
      problems: jobProblems,
      events: [
        {
          kind: 'job.finished',
          description: 'A job reached a final state: `succeeded`, `failed` or `cancelled`.',
          payload: Job,
        },
      ],
      routes: () => jobRoutes(kernel.store, kernel.jobs, () => kernel.nudgeDispatcher()),
    }),
    definePlugin({
      name: 'usage',
      version,
      description: 'Counts for dashboards: every usage counter plugins keep, and customers’ limits.',
      routes: () => {
        const catalogue = kernel.catalogue()
        return usageRoutes(kernel.store, {
          metrics: catalogue.usageMetrics,
          sections: catalogue.usageSections,
          quotas: kernel.quotas(),
          limited: catalogue.limitedMetrics,
        })
      },
    }),
    definePlugin({
      name: 'capabilities',
      version,
      description: 'What this installation supports, what the caller may do, and the limits in force.',
      routes: () => {
        const catalogue = kernel.catalogue()
        return capabilitiesRoutes(
          {
            version: kernel.version,
            plugins: kernel.installedPlugins(),
            eventKinds: catalogue.events.map((event) => event.kind),
            rateLimitPerMinute: kernel.rateLimitPerMinute,
            defaultCustomerLimits: kernel.defaultCustomerLimits,
            limitedMetrics: catalogue.limitedMetrics,
          },
          kernel.limits,
          { db: kernel.store.db, service: kernel.quotas() },
        )
      },
    }),
  ]
}

/** Names of the kernel's areas: plugins may reach what they own without requiring them. */
export const kernelAreaNames: ReadonlySet<string> = new Set([
  'kernel',
  'identity',
  'audit',
  'jobs',
  'usage',
  'capabilities',
])
