// The logs plugin's refusals: which log, and the query's filters.

import { defineProblems } from '../../core/index.ts'

/** The logs plugin's problem codes, catalogued in docs/problem-codes.md. */
export const logsProblems = defineProblems({
  unknown_log_kind: {
    status: 404,
    detail: 'A site has no such log: `access`, `error` or `php`.',
    description:
      'The path names the log: `/sites/{id}/logs/access` (nginx’s access log), `/logs/error` (nginx’s error log) or `/logs/php` (PHP’s error log).',
  },
  invalid_since: {
    status: 422,
    detail: '`since` is not an ISO 8601 time with a date and a time (`2026-11-29T16:00:00Z`).',
    description: '`since` is a time with its date, its time and its zone (`Z` or `+01:00`).',
  },
  invalid_status_filter: {
    status: 422,
    detail:
      '`status` is a comma-separated list of statuses (`404`), classes (`5xx`) or ranges (`400-499`), each within 100 to 599.',
    description:
      'Up to 20 items: a status (`404`), a class (`4xx`, `5xx`) or an inclusive range (`500-503`), separated by commas.',
  },
  status_filter_not_applicable: {
    status: 422,
    detail: '`status` filters the access log only.',
    description: 'Error and PHP logs have no statuses: leave `status` out for them.',
  },
  invalid_last_event_id: {
    status: 400,
    detail: '`Last-Event-ID` is not an id this stream sent.',
    description:
      'A follower resumes with the `id:` of the last event it received (`<inode>-<offset>`); leave the header out to start from the last lines again.',
  },
  logs_unavailable: {
    status: 503,
    detail: 'The site’s node could not read its logs now.',
    description: 'The node failed reading the logs (its agent answered with an error): try again.',
  },
  log_follow_limit: {
    status: 429,
    detail: 'This site’s logs are followed by as many streams as they may be at once: close one first.',
    description:
      'A site’s logs may be followed by at most 10 streams at once (each one reads the site’s node twice a second), counted by each panel instance: close a stream (a browser tab following a log) and open it again.',
  },
})
