// What other plugins and clients may rely on of the cron plugin: its items (a site's cron jobs and their runs), its
// scopes and events. docs/cron.md.

import { areaScopes, enumOf, resourceItem, type Static, t } from '../../core/index.ts'

/** Who holds the cron scopes on a customer: a site's jobs are the developers' work too. */
export const cronRoles = ['owner', 'admin', 'developer'] as const
/** `cron:read` and `cron:manage`. */
export const cronScopes = areaScopes('cron', 'sites’ cron jobs', cronRoles)

/** What a job runs: a command line, or WordPress's `wp-cron.php` (WP-Cron as a real cron job). */
export const cronJobKinds = ['command', 'wp-cron'] as const
/** How a run ended, or that it still runs. */
export const cronRunStatuses = ['running', 'succeeded', 'failed', 'timed_out', 'skipped'] as const
/** What started a run. */
export const cronRunTriggers = ['scheduled', 'manual'] as const

/** A site's cron job. */
export const CronJob = resourceItem('CronJob', 'cron', {
  siteId: t.String({ description: 'Its site, `site_…`.' }),
  customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
  kind: enumOf(cronJobKinds, {
    description:
      '`command`: `command` run with `/bin/sh -c` in the site’s home. `wp-cron`: WordPress’s `wp-cron.php` run with PHP in `htdocs/` (WordPress sites only; while the job exists, `DISABLE_WP_CRON` is set in `wp-config.php`, so page views no longer run WP-Cron).',
  }),
  schedule: t.String({
    description:
      'When it runs, in UTC: five fields (minute hour day-of-month month day-of-week) with `*`, lists `1,15`, ranges `1-5`, steps `*/10` and names (`jan`, `mon`), or `@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`.',
  }),
  command: t.String({
    description: 'The command line (for `wp-cron`, what the node runs: `php -f wp-cron.php` in `htdocs/`).',
  }),
  enabled: t.Boolean({
    description: 'Whether the schedule runs it (a disabled job still runs when asked to).',
  }),
  timeoutSeconds: t.Integer({ description: 'How long a run may last before it is killed (`timed_out`).' }),
  nextRunAt: t.Union([t.String(), t.Null()], {
    description: 'When the schedule runs it next (UTC), or null while it is disabled.',
  }),
  lastRunAt: t.Union([t.String(), t.Null()], { description: 'When its last run started, or null.' }),
  lastStatus: t.Union([enumOf(cronRunStatuses), t.Null()], {
    description: 'How its last run ended, or null.',
  }),
})
export type CronJob = Static<typeof CronJob>

/** One run of a cron job. */
export const CronRun = resourceItem('CronRun', 'crun', {
  cronJobId: t.String({ description: 'Its job, `cron_…`.' }),
  siteId: t.String({ description: 'Its site, `site_…`.' }),
  customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
  trigger: enumOf(cronRunTriggers, { description: '`scheduled` (its schedule) or `manual` (run now).' }),
  status: enumOf(cronRunStatuses, {
    description:
      '`running`; `succeeded` (exit code 0); `failed` (another exit code, or the node could not run it: `error` says why); `timed_out` (killed at `timeoutSeconds`); `skipped` (due while its previous run still ran).',
  }),
  command: t.String({ description: 'The command line it ran (the job’s, when it started).' }),
  startedAt: t.String({ description: 'When it started (or, skipped, when it was due).' }),
  finishedAt: t.Union([t.String(), t.Null()], { description: 'When it ended, or null while it runs.' }),
  durationMs: t.Union([t.Integer(), t.Null()], { description: 'How long it ran, or null.' }),
  exitCode: t.Union([t.Integer(), t.Null()], {
    description: 'The shell’s exit code; null when killed or not run.',
  }),
  output: t.String({
    description: 'The last 8 KiB of its stdout and stderr, interleaved as they came (empty while it runs).',
  }),
  outputTruncated: t.Boolean({ description: 'Whether it printed more than `output` holds.' }),
  error: t.Union(
    [
      t.Object({
        code: t.String({
          description: 'Stable: `previous_run_running`, `node_unavailable`, `run_lost`, `site_suspended`, ….',
        }),
        message: t.String(),
      }),
      t.Null(),
    ],
    { description: 'Why it was skipped or could not run, or null.' },
  ),
})
export type CronRun = Static<typeof CronRun>
