// A log's entries as rows: a request per row for the access log (its status coloured by class), a message per row
// for the error and PHP logs (stack traces kept on their lines).

import { EmptyState, formatTime } from '../../console/kit.ts'
import type { LogEntry } from './api.ts'
import { statusClass } from './log-filters.ts'

export function LogRows({ entries, empty }: { entries: readonly LogEntry[]; empty: string }) {
  if (entries.length === 0) return <EmptyState>{empty}</EmptyState>
  const access = 'status' in (entries[0] as LogEntry)
  return (
    <table className="log-table" aria-label="Log entries">
      <thead>
        {access ? (
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Status</th>
            <th scope="col">Request</th>
            <th scope="col">Bytes</th>
            <th scope="col">Client</th>
          </tr>
        ) : (
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Level</th>
            <th scope="col">Message</th>
          </tr>
        )}
      </thead>
      <tbody>
        {entries.map((entry, index) =>
          'status' in entry ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id; their order never changes
            <tr key={index}>
              <td>{formatTime(entry.time)}</td>
              <td className={`log-status-${statusClass(entry.status)}`}>{entry.status}</td>
              <td className="log-path">
                {entry.method} {entry.path}
              </td>
              <td>{entry.bytes}</td>
              <td title={[entry.userAgent, entry.referrer].filter(Boolean).join(' — ')}>
                {entry.remoteAddress}
              </td>
            </tr>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id; their order never changes
            <tr key={index}>
              <td>{formatTime(entry.time)}</td>
              <td>{entry.level}</td>
              <td className="log-message">{entry.message}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  )
}
