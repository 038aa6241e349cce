// `/sites/:id/logs`, a tab of the site: which log (access, error, PHP), its filters (how many of the last entries,
// since when, statuses, text), and either the last entries (read again on demand) or, live, the same followed as
// they are written (EventSource: the session's cookie goes with it), with a pause that holds new entries back.

import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { apiUrl, ErrorNotice, isoOfLocal, Loading, localOfIso, Section } from '../../console/kit.ts'
import { SiteFrame } from '../../sites/console/contract.ts'
import { api, type LogEntry, type Schemas } from './api.ts'
import { endText, type LogFilters, type LogKind, logKinds, logQuery, noFilters } from './log-filters.ts'
import { LogRows } from './log-rows.tsx'

/** The most entries a live view keeps on screen. */
const liveRows = 2000

export function SiteLogsPage({ siteId }: { siteId: string }) {
  const [kind, setKind] = useState<LogKind>('access')
  const [typed, setTyped] = useState<LogFilters>(noFilters)
  const [filters, setFilters] = useState<LogFilters>(noFilters)
  const [live, setLive] = useState(false)
  return (
    <SiteFrame id={siteId} title="Logs">
      {(site) => (
        <Section title="Logs">
          <form
            className="log-filters"
            onSubmit={(event) => {
              event.preventDefault()
              setFilters(typed)
            }}
          >
            <label>
              Log
              <select
                aria-label="Log"
                value={kind}
                onChange={(event) => setKind(event.target.value as LogKind)}
              >
                {logKinds.map((each) => (
                  <option key={each.kind} value={each.kind}>
                    {each.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Last entries
              <input
                type="number"
                min={1}
                max={5000}
                value={typed.lines}
                onChange={(event) => setTyped({ ...typed, lines: event.target.value })}
              />
            </label>
            <label>
              Since
              <input
                type="datetime-local"
                value={localOfIso(typed.since)}
                onChange={(event) =>
                  setTyped({ ...typed, since: event.target.value ? isoOfLocal(event.target.value) : '' })
                }
              />
            </label>
            {kind === 'access' ? (
              <label>
                Status
                <input
                  placeholder="5xx, 404, 400-499"
                  value={typed.status}
                  onChange={(event) => setTyped({ ...typed, status: event.target.value })}
                />
              </label>
            ) : null}
            <label>
              Containing
              <input
                value={typed.search}
                onChange={(event) => setTyped({ ...typed, search: event.target.value })}
              />
            </label>
            <button type="submit">Apply</button>
            <label className="log-live">
              <span>
                <input
                  type="checkbox"
                  checked={live}
                  disabled={site.status !== 'active'}
                  onChange={(event) => setLive(event.target.checked)}
                />{' '}
                Live
              </span>
            </label>
          </form>
          {live ? (
            <LiveLog
              key={`${kind}?${JSON.stringify(filters)}`}
              siteId={site.id}
              kind={kind}
              filters={filters}
            />
          ) : (
            <LastEntries siteId={site.id} kind={kind} filters={filters} />
          )}
        </Section>
      )}
    </SiteFrame>
  )
}

function LastEntries({ siteId, kind, filters }: { siteId: string; kind: LogKind; filters: LogFilters }) {
  const read = useQuery(
    api.query('/api/v1/sites/{id}/logs/{kind}', {
      params: { path: { id: siteId, kind }, query: logQuery(kind, filters) as never },
    }),
  )
  if (read.isPending) return <Loading />
  if (read.isError) return <ErrorNotice error={read.error} />
  // The console asks for JSON: the event stream is the live view's.
  const page = read.data as Schemas['LogPage']
  return (
    <>
      <p>
        <button type="button" className="secondary" onClick={() => void read.refetch()}>
          Read again
        </button>
        {page.truncated ? ' Older entries were not looked at (the read stopped at 32 MiB of log).' : null}
      </p>
      <LogRows entries={page.entries} empty="No entries match." />
    </>
  )
}

function LiveLog({ siteId, kind, filters }: { siteId: string; kind: LogKind; filters: LogFilters }) {
  const [entries, setEntries] = useState<LogEntry[]>([])
  const [paused, setPaused] = useState(false)
  const [held, setHeld] = useState(0)
  const [ended, setEnded] = useState<string | null>(null)
  const [connected, setConnected] = useState(false)
  const pausedRef = useRef(false)
  const heldRef = useRef<LogEntry[]>([])
  useEffect(() => {
    const query = new URLSearchParams(logQuery(kind, filters)).toString()
    const source = new EventSource(
      apiUrl(`/sites/${encodeURIComponent(siteId)}/logs/${kind}${query ? `?${query}` : ''}`),
      { withCredentials: true },
    )
    source.onopen = () => setConnected(true)
    source.onerror = () => {
      setConnected(false)
      // Refused outright (too many follows of the site, access lost): EventSource does not try again.
      if (source.readyState === EventSource.CLOSED)
        setEnded(
          'Following could not start (the site’s logs may be followed by too many at once): try again later.',
        )
    }
    source.addEventListener('entry', (event) => {
      const entry = JSON.parse((event as MessageEvent).data) as LogEntry
      if (pausedRef.current) {
        heldRef.current.push(entry)
        setHeld(heldRef.current.length)
      } else setEntries((previous) => [...previous, entry].slice(-liveRows))
    })
    source.addEventListener('end', (event) => {
      const { reason } = JSON.parse((event as MessageEvent).data) as { reason: string }
      source.close()
      setConnected(false)
      setEnded(endText[reason] ?? `Following stopped (${reason}).`)
    })
    return () => source.close()
  }, [siteId, kind, filters])
  const resume = () => {
    pausedRef.current = false
    setPaused(false)
    const waiting = heldRef.current
    heldRef.current = []
    setHeld(0)
    setEntries((previous) => [...previous, ...waiting].slice(-liveRows))
  }
  return (
    <>
      <p className="log-live" aria-live="polite">
        <span>
          {ended ?? (connected ? 'Following: new entries appear as they are written.' : 'Connecting…')}
        </span>
        {paused ? (
          <button type="button" onClick={resume}>
            Resume{held > 0 ? ` (${held} new)` : ''}
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={ended !== null}
            onClick={() => {
              pausedRef.current = true
              setPaused(true)
            }}
          >
            Pause
          </button>
        )}
      </p>
      <LogRows entries={entries} empty="No entries yet: they appear here as the site writes them." />
    </>
  )
}
