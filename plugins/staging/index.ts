// The staging plugin: a live site's staging copy (a site of its own on a staging domain, made from a fresh backup of
// the live site with its URL moved) and its push to live (chosen files and tables, after the live site's
// pre-restore backup, undone with one call), built on the backups plugin's copies. docs/staging.md.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import { PushedStaging, Staging, stagingScopes } from './contract.ts'
import { stagingJobs } from './jobs.ts'
import { stagingMigrations } from './migrations.ts'
import { stagingProblems } from './problems.ts'
import { stagingTables } from './repository.ts'
import { stagingRoutes } from './routes/staging.ts'

/** Who holds the staging scopes on a customer: its hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Options of {@link stagingPlugin}. */
export interface StagingOptions {
  /**
   * `STAGING_DOMAIN`: a domain of the provider's whose sub-domains point at its nodes (a wildcard record): a staging
   * copy's default domain is then `staging-<live handle>.<it>`. Unset: `staging.<live domain>`, which the customer
   * points at the node as any domain.
   */
  readonly domain?: string | null
}

/** Staging copies of sites and their push to live. */
export const stagingPlugin = (options: StagingOptions = {}) =>
  definePlugin({
    name: 'staging',
    version: '0.1.0',
    description:
      'Staging copies of sites on a staging domain, pushed to live by chosen files and tables after a backup that undoes it.',
    requires: ['customers', 'sites', 'nodes', 'backups'],
    enhances: ['console'],
    scopes: [
      { name: stagingScopes.read, description: 'Read sites’ staging copies', roles: hostingRoles },
      {
        name: stagingScopes.manage,
        description: 'Make staging copies of sites and push them to live',
        roles: hostingRoles,
      },
    ],
    events: [
      {
        kind: 'site.staged',
        description:
          'A live site’s staging copy is ready: the live site’s files and database serve on its domain.',
        payload: Staging,
      },
      {
        kind: 'site.pushed',
        description:
          'A staging copy was pushed to its live site: `lastPush` says what, and `undo` the call that puts the live site back.',
        payload: PushedStaging,
      },
    ],
    problems: stagingProblems,
    migrations: stagingMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // A deleted staging site is no longer its live site's copy; a deleted live site leaves its staging copy as an
      // ordinary site of the customer's (its data is theirs: they delete it as any site).
      context.extensionPoint(siteDependents).add({
        name: 'staging',
        remove: (run, site) =>
          run.transaction(async (trx) => {
            await stagingTables(trx)
              .deleteFrom('staging_sites')
              .where((w) => w.or([w('staging_site_id', '=', site.id), w('live_site_id', '=', site.id)]))
              .execute()
          }),
      })
    },
    jobs: stagingJobs,
    routes: (context) => stagingRoutes(context, { domain: options.domain ?? null }),
  })
