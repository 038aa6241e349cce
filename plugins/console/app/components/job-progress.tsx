// A job followed live through its event stream (`GET /jobs/{id}/events`, Server-Sent Events): status, progress and
// step as they change, output lines as they come, and the finished job at the end. A finished job changed its
// subject (a site provisioned, a certificate issued): what the page shows is read again then, so no page says what.

import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { apiUrl, type Schemas } from '../api/client.ts'
import { StatusBadge } from './status-badge.tsx'

type Job = Schemas['Job']

interface Progress {
  readonly status: string
  readonly progress: number
  readonly step: string | null
}

/** A failed job's error as words: its `message` (and `code`), whatever else it carries. */
function errorText(error: unknown): string {
  if (error && typeof error === 'object') {
    const { message, detail, code } = error as { message?: unknown; detail?: unknown; code?: unknown }
    const text = typeof message === 'string' ? message : typeof detail === 'string' ? detail : null
    if (text) return typeof code === 'string' ? `${text} (${code})` : text
  }
  return JSON.stringify(error)
}

export function JobProgress({
  jobId,
  onFinished,
  showOutput = false,
}: {
  jobId: string
  onFinished?: (job: Job) => void
  showOutput?: boolean
}) {
  const [progress, setProgress] = useState<Progress | null>(null)
  const [finished, setFinished] = useState<Job | null>(null)
  const [lines, setLines] = useState<string[]>([])
  const queries = useQueryClient()
  const finishedRef = useRef(onFinished)
  finishedRef.current = onFinished
  useEffect(() => {
    const source = new EventSource(apiUrl(`/jobs/${encodeURIComponent(jobId)}/events`), {
      withCredentials: true,
    })
    source.addEventListener('progress', (event) => setProgress(JSON.parse((event as MessageEvent).data)))
    source.addEventListener('output', (event) => {
      const { line } = JSON.parse((event as MessageEvent).data) as { line: string }
      setLines((previous) => [...previous.slice(-499), line])
    })
    source.addEventListener('end', (event) => {
      const job = JSON.parse((event as MessageEvent).data) as Job
      source.close()
      setFinished(job)
      setProgress({ status: job.status, progress: job.progress, step: job.step })
      finishedRef.current?.(job)
      void queries.invalidateQueries({ type: 'active' })
    })
    return () => source.close()
  }, [jobId, queries])
  const status = finished?.status ?? progress?.status ?? 'queued'
  const percent = progress?.progress ?? 0
  return (
    <div className="job-progress" data-testid="job-progress" data-status={status}>
      <p aria-live="polite">
        Job <code>{jobId}</code>: <StatusBadge status={status} />{' '}
        {progress?.step && !finished ? `— ${progress.step}` : ''}
      </p>
      <progress max={100} value={percent} aria-label={`Job progress, ${percent}%`}>
        {percent}%
      </progress>
      {finished?.error ? (
        <p className="field-error" role="alert">
          {errorText(finished.error)}
        </p>
      ) : null}
      {showOutput && lines.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log takes the focus so the keyboard can scroll it
        <pre className="job-output" role="log" aria-label="Job output" tabIndex={0}>
          {lines.join('\n')}
        </pre>
      ) : null}
    </div>
  )
}
