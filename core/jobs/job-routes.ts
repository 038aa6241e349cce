// GET /jobs, GET /jobs/{id}, POST /jobs/{id}/cancel: background work as its customers and staff see it.

import { Type as t } from '@sinclair/typebox'
import { defineRoute, Reply, type RouteDefinition } from '../plugin/route.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import type { Db, Store } from '../store/store.ts'
import { findVisible } from '../tenancy/find-visible.ts'
import { selectVisible, type TenantView } from '../tenancy/tenant-view.ts'
import { cancelJob } from './job-cancel.ts'
import { jobStatuses } from './job-definition.ts'
import { type JobStreamOptions, jobEventStream } from './job-event-stream.ts'
import { toJob } from './job-queue.ts'
import type { RegisteredJob } from './job-runner.ts'
import { Job } from './job-schema.ts'
import type { JobsTable, JobTables } from './job-tables.ts'

const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Job scopes: customer scopes, held by owners, admins and developers. */
export const jobScopes = [
  { name: 'job:read', description: 'Job status and progress', roles: hostingRoles },
  { name: 'job:cancel', description: 'Cancel jobs that can be cancelled', roles: hostingRoles },
] as const

const jobTables = (db: Db) => db.withTables<JobTables>()

export const jobProblems = defineProblems({
  job_not_cancellable: {
    status: 409,
    detail: 'This job cannot be cancelled.',
    description: 'Its kind does not support cancelling, or it has already finished. Nothing was changed.',
  },
})

const ListJobsQuery = t.Object({
  status: t.Optional(
    t.Union(
      jobStatuses.map((status) => t.Literal(status)),
      { description: 'Only jobs in this state.' },
    ),
  ),
  kind: t.Optional(t.String({ maxLength: 64, description: 'Only jobs of this kind (`resource.verb`).' })),
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s jobs.' })),
  subjectId: t.Optional(t.String({ maxLength: 64, description: 'Only jobs working on this resource.' })),
})

/** The job operations; `jobs` are the registered kinds (for `cancellable`), `woken` after a cancel commits. */
export function jobRoutes(
  store: Store,
  jobs: ReadonlyMap<string, RegisteredJob>,
  finished: () => void,
  streamOptions: JobStreamOptions = {},
): RouteDefinition[] {
  const cancellable = (kind: string) => jobs.get(kind)?.definition.cancellable === true
  const visibleJobs = (view: TenantView) => selectVisible(jobTables(store.db), 'jobs', view).selectAll()
  return [
    defineRoute({
      method: 'GET',
      path: '/jobs',
      operationId: 'listJobs',
      summary: 'List jobs',
      description: 'Jobs of customers the caller may see (staff work only for staff), newest first.',
      scope: 'job:read',
      query: ListJobsQuery,
      list: {
        item: Job,
        key: 'jobs.id',
        order: 'desc',
        toItem: (row: JobsTable) => toJob(row, cancellable(row.kind)),
      },
      handler({ query: filters, view }) {
        let jobsQuery = visibleJobs(view)
        if (filters.status !== undefined) jobsQuery = jobsQuery.where('jobs.status', '=', filters.status)
        if (filters.kind !== undefined) jobsQuery = jobsQuery.where('jobs.kind', '=', filters.kind)
        if (filters.customerId !== undefined)
          jobsQuery = jobsQuery.where('jobs.customer_id', '=', filters.customerId)
        if (filters.subjectId !== undefined)
          jobsQuery = jobsQuery.where('jobs.subject_id', '=', filters.subjectId)
        return jobsQuery
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/jobs/:id',
      operationId: 'getJob',
      summary: 'Read a job',
      description: 'Status, progress, current step, attempts, and the result or last error.',
      scope: 'job:read',
      params: { id: 'job' },
      responses: { 200: { description: 'The job.', schema: Job } },
      async handler({ params, view }) {
        const row = await findVisible(jobTables(store.db), 'jobs', view, params.id)
        return toJob(row, cancellable(row.kind))
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/jobs/:id/events',
      operationId: 'streamJobEvents',
      summary: 'Follow a job live (Server-Sent Events)',
      description:
        'A `text/event-stream` of the job: a `progress` event at once and at every change of `status`, `progress`, `step` or `attempts` (`{ status, progress, step, attempts, updatedAt }`), an `output` event for each line of output the job reports (`{ seq, stream, line, at }`, `stream` being `stdout`, `stderr` or `notice`; a job keeps at most 2,000 lines of 4,096 characters, and every connection starts again from the first), then an `end` event with the finished job as `GET /jobs/{id}` shows it, and the stream closes. A finished job answers its last `progress` and `end` at once. Comments keep idle connections open; after an hour the stream closes and the client reconnects (EventSource does). For every kind of job.',
      scope: 'job:read',
      params: { id: 'job' },
      responses: {
        200: { description: 'The job’s events, as they happen.', contentType: 'text/event-stream' },
      },
      async handler({ params, view, request }) {
        const row = await findVisible(jobTables(store.db), 'jobs', view, params.id)
        const render = (current: JobsTable) => toJob(current, cancellable(current.kind))
        return Reply.stream(
          jobEventStream(store.db, row.id, render, request.signal, streamOptions),
          'text/event-stream',
        )
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/jobs/:id/cancel',
      operationId: 'cancelJob',
      summary: 'Cancel a job',
      description:
        'A queued job is cancelled at once (200). A running one is asked to stop at its next step (202, `cancelRequested: true`); it ends `cancelled` and `job.finished` is sent. Jobs whose kind cannot be cancelled, and finished jobs, answer 409.',
      scope: 'job:cancel',
      params: { id: 'job' },
      responses: {
        200: { description: 'The job, cancelled.', schema: Job },
        202: { description: 'The job, asked to stop.', schema: Job },
      },
      problems: Object.values(jobProblems),
      async handler({ params, view, audit }) {
        await findVisible(jobTables(store.db), 'jobs', view, params.id)
        const outcome = await store.transaction(async (trx) => {
          const cancel = await cancelJob(trx, store, jobs, params.id)
          if (cancel.outcome === 'finished' || cancel.outcome === 'not_cancellable' || !cancel.row)
            throw new Problem(jobProblems.job_not_cancellable)
          await audit(trx, {
            action: 'job.cancel',
            subject: { type: 'job', id: cancel.row.id },
            customerId: cancel.row.customer_id,
            details: { kind: cancel.row.kind, status: cancel.outcome === 'cancelled' ? 'queued' : 'running' },
          })
          return { status: cancel.outcome === 'cancelled' ? 200 : 202, row: cancel.row }
        })
        if (outcome.status === 200) finished()
        return new Reply(outcome.status, toJob(outcome.row, true))
      },
    }),
  ]
}
