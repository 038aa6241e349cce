// What the logs API answers: entries of an access log, entries of an error log, and a page of them.

import { t } from '../../core/index.ts'
import { SinceTime, StatusFilter } from './filters.ts'
import { defaultLines, logKinds, maxLines } from './node/protocol.ts'

export const AccessLogEntry = t.Object(
  {
    time: t.String({ format: 'date-time', description: 'When nginx finished the request, UTC.' }),
    remoteAddress: t.String({ description: 'The client’s address as nginx saw it.' }),
    method: t.String({ description: '`GET`, `POST`, …; empty for a request line nginx could not read.' }),
    path: t.String({
      description: 'The path and query as requested (nginx’s escapes of unprintable bytes kept).',
    }),
    protocol: t.String({
      description: '`HTTP/1.1`, `HTTP/2.0`; empty for a request line nginx could not read.',
    }),
    status: t.Integer({ description: 'The status answered.' }),
    bytes: t.Integer({ description: 'Bytes of the body sent.' }),
    bytesSent: t.Integer({ description: 'Bytes sent in all, headers included.' }),
    referrer: t.Union([t.String(), t.Null()], { description: 'The `Referer` header, or null.' }),
    userAgent: t.Union([t.String(), t.Null()], { description: 'The `User-Agent` header, or null.' }),
  },
  { $id: 'AccessLogEntry', description: 'A request the site answered (nginx’s access log).' },
)

export const MessageLogEntry = t.Object(
  {
    time: t.String({ format: 'date-time', description: 'When it was written, UTC.' }),
    level: t.String({
      description:
        'nginx’s level (`emerg`, `alert`, `crit`, `error`, `warn`, `notice`, `info`) or PHP’s (`fatal`, `parse`, `warning`, `notice`, `deprecated`, …; `message` for what the site’s code wrote with `error_log()`).',
    }),
    message: t.String({ description: 'The message; PHP’s stack traces on the lines after the first.' }),
  },
  {
    $id: 'MessageLogEntry',
    description: 'A line of nginx’s or PHP’s error log (with the lines that go on it).',
  },
)

export const LogPage = t.Object(
  {
    kind: t.Union(
      logKinds.map((kind) => t.Literal(kind)),
      { description: 'Which log.' },
    ),
    entries: t.Array(t.Union([AccessLogEntry, MessageLogEntry]), {
      description:
        'Oldest first, newest last: access entries for `access`, message entries for `error` and `php`.',
    }),
    truncated: t.Boolean({
      description:
        'The read stopped at its budget (32 MiB of log) before it found `lines` entries or reached `since`: older entries were not looked at.',
    }),
    cursor: t.String({
      description:
        'Where the log ends now (`<inode>-<offset>`): as `Last-Event-ID`, a follow starts right after these entries.',
    }),
  },
  { $id: 'LogPage', description: 'The last entries of one of a site’s logs.' },
)

export const LogQuery = t.Object({
  lines: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxLines,
      description: `How many of the last entries (that pass the filters): 1 to ${maxLines}, default ${defaultLines}.`,
    }),
  ),
  since: t.Optional(
    SinceTime({
      maxLength: 40,
      description: 'Only entries at or after this time (ISO 8601, with its zone).',
    }),
  ),
  status: t.Optional(
    StatusFilter({
      maxLength: 200,
      description:
        'Access log only: statuses (`404`), classes (`5xx`) or ranges (`400-499`), comma-separated.',
      examples: ['5xx', '404,410', '400-499'],
    }),
  ),
  search: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      description: 'Only entries whose line holds this text (any case).',
    }),
  ),
})
