// WP-Cron kept as the site's cron jobs say after a restore into a WordPress site (the backups plugin's
// `backup.restored`, when the installation has backups). A restore of a site's own backup that brings back its
// `wp-config.php` brings back the `DISABLE_WP_CRON` line as it was when the backup was taken: a backup taken while the
// site had a `wp-cron` job, restored after that job was deleted, would leave WP-Cron off with nothing running it (and
// the other way round, WP-Cron running twice). So after every restore whose files cover `wp-config.php` the line is
// set again from the site's jobs now, by a `cron.wp_cron_sync` job (a node that does not answer is tried again).
// A clone or a staging copy keeps its own wp-config.php (WordPress's restore adapter) and a push keeps the live
// site's, so for them this changes nothing; it is done all the same, as cheap and idempotent.

import {
  type JobDefinition,
  JobFailure,
  type OutboxEvent,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import { NodeRefusal } from '../nodes/contract.ts'
import { siteDirectory } from '../sites/contract.ts'
import { cronTables } from './repository.ts'
import type { CronScheduler } from './scheduler.ts'

/** The job's kind. */
export const wpCronSyncJobKind = 'cron.wp_cron_sync'

const restoredEventKind = 'backup.restored'
const wpConfig = '/htdocs/wp-config.php'
const everyone = { kind: 'all' } as const

/** Whether a restore of `files` (the backups plugin's selection) brings back wp-config.php. */
export function coversWpConfig(files: unknown): boolean {
  if (files === true) return true
  if (!Array.isArray(files)) return false
  return files.some((path) => {
    if (typeof path !== 'string') return false
    const normal = `/${path
      .split('/')
      .filter((part) => part !== '' && part !== '.')
      .join('/')}`
    return normal === '/' || normal === wpConfig || wpConfig.startsWith(`${normal}/`)
  })
}

/** Follows `backup.restored` when the installation has the backups plugin (an optional dependency). */
export function followRestores(context: PluginContext): void {
  if (!context.knownEvents().some((event) => event.kind === restoredEventKind)) return
  context.onEvent(restoredEventKind, (trx, event) => restored(context, trx, event))
}

async function restored(context: PluginContext, trx: Trx, event: OutboxEvent): Promise<void> {
  const restore = (event.data as { restore?: { siteId?: unknown; files?: unknown } }).restore
  if (typeof restore?.siteId !== 'string' || !coversWpConfig(restore.files)) return
  const site = await context.use(siteDirectory).find(trx, everyone, restore.siteId)
  if (site?.type !== 'wordpress') return
  await context.enqueueJob(trx, {
    kind: wpCronSyncJobKind,
    customerId: site.customerId,
    subject: { type: 'site', id: site.id },
    input: { siteId: site.id },
  })
}

/** The job: the line set (a `wp-cron` job) or removed (none) in the site's wp-config.php. */
export function wpCronSyncJob(context: PluginContext, scheduler: () => CronScheduler): JobDefinition {
  return {
    kind: wpCronSyncJobKind,
    description:
      'After a restore into a WordPress site: sets `DISABLE_WP_CRON` in its wp-config.php again as its cron jobs say (a `wp-cron` job: set; none: removed), since a restored wp-config.php has the line as it was when the backup was taken. A node that does not answer is tried again.',
    maxAttempts: 5,
    timeoutMs: 120_000,
    async run(job) {
      const siteId = String(job.input.siteId)
      const site = await context.use(siteDirectory).find(context.db, everyone, siteId)
      if (site?.status !== 'active' || site.type !== 'wordpress') return { skipped: 'site_not_running' }
      const wpCronJob = await cronTables(context.db)
        .selectFrom('cron_jobs')
        .select('id')
        .where('siteId', '=', site.id)
        .where('kind', '=', 'wp-cron')
        .executeTakeFirst()
      const disabled = wpCronJob !== undefined
      try {
        await scheduler().setWpCron(site, disabled)
      } catch (error) {
        // wp-config.php gone, or refused: trying again will not help.
        if (error instanceof NodeRefusal && error.code !== 'node_unavailable')
          throw new JobFailure(error.message, error.code)
        throw error
      }
      return { siteId: site.id, wpCronDisabled: disabled }
    },
    async onGivenUp(_trx, job, outcome, error) {
      context.log.warn(
        { siteId: job.input.siteId, outcome, code: error.code, message: error.message },
        'DISABLE_WP_CRON was not set again after a restore: wp-config.php has it as the backup had it',
      )
    },
  }
}
