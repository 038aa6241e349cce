// Refusals of the cron plugin.

import { defineProblems } from '../../core/index.ts'

/** The cron plugin's problem codes, catalogued in docs/problem-codes.md. */
export const cronProblems = defineProblems({
  invalid_cron_schedule: {
    status: 422,
    detail: 'The schedule is not a cron schedule.',
    description:
      '`schedule` is five fields (minute hour day-of-month month day-of-week: `*`, lists, ranges, steps, `jan`…`dec`, `sun`…`sat`) or an alias (`@hourly`, `@daily`, …), at most 200 characters, and fires at least once; the error’s message says which field is wrong.',
  },
  invalid_cron_command: {
    status: 422,
    detail: 'The command is not one line of at most 4096 characters.',
    description:
      '`command` is one non-blank line: no NUL, no line break, no other control character (a tab is fine), at most 4096 characters. A `wp-cron` job takes no command.',
  },
  cron_command_required: {
    status: 422,
    detail: 'A `command` job needs a command.',
    description: '`command` is required unless `kind` is `wp-cron`.',
  },
  cron_wp_cron_unsupported: {
    status: 422,
    detail: 'WP-Cron jobs are for WordPress sites.',
    description: '`kind: wp-cron` is accepted only on a site of type `wordpress`.',
  },
  cron_wp_cron_exists: {
    status: 409,
    detail: 'The site already has a WP-Cron job.',
    description: 'A site has at most one `wp-cron` job: change its schedule instead.',
  },
  cron_job_limit_reached: {
    status: 409,
    detail: 'The site already has as many cron jobs as it may.',
    description:
      'A site keeps at most the plugin’s `maxJobsPerSite` (default 25) cron jobs: delete one first.',
  },
  cron_site_unavailable: {
    status: 409,
    detail: 'Cron jobs are changed only on an active or suspended site.',
    description: 'The site is `provisioning`, `failed` or `deleting`.',
  },
  cron_job_running: {
    status: 409,
    detail: 'The job’s previous run still runs.',
    description: 'A job runs once at a time: wait for its run to end (its runs list shows it).',
  },
  cron_node_unreachable: {
    status: 503,
    detail: 'The site’s node did not answer; nothing was changed.',
    description:
      'Turning WP-Cron off or on edits the site’s wp-config.php on its node: the node’s agent is not connected, or did not answer. Try again once it is back.',
  },
})
