// Beside a schedule field: the next times it fires (UTC and the browser's time), or why it is not a schedule, as
// the API checks it (`GET /cron-schedules/next-runs`), asked once typing pauses.

import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { ApiProblem } from '../../console/kit.ts'
import { api } from './api.ts'

/** The value once it has not changed for `ms`. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

export function SchedulePreview({ schedule }: { schedule: string }) {
  const settled = useSettled(schedule.trim(), 300)
  const preview = useQuery({
    ...api.query('/api/v1/cron-schedules/next-runs', { params: { query: { schedule: settled, count: 5 } } }),
    enabled: settled !== '',
    retry: false,
  })
  if (settled === '') return null
  if (preview.isError) {
    const error = preview.error
    const reason = error instanceof ApiProblem ? (error.errors[0]?.message ?? error.message) : String(error)
    return (
      <p className="notice notice-error" role="status" data-testid="schedule-preview">
        Not a schedule: {reason}
      </p>
    )
  }
  if (!preview.data) return null
  return (
    <div className="muted" role="status" data-testid="schedule-preview">
      Next runs:
      <ul>
        {preview.data.nextRuns.map((at) => (
          <li key={at}>
            {utc(at)} <span className="muted">({new Date(at).toLocaleString()} here)</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
