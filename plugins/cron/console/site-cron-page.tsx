// `/sites/:id/cron`: the site's cron jobs (schedule and next run, command, last run), turned on or off, run now,
// changed or deleted; a job's runs with their output; a new job.

import { useState } from 'react'
import {
  ActionError,
  type Column,
  ConfirmButton,
  CursorTable,
  formatTime,
  Section,
  StatusBadge,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { SiteFrame, type SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { EditCronJobForm, NewCronJobForm } from './cron-job-form.tsx'

type Site = SiteSchemas['Site']
type CronJob = Schemas['CronJob']
type CronRun = Schemas['CronRun']

function duration(ms: number | null): string {
  if (ms === null) return '—'
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`
}

function Runs({ site, job }: { site: Site; job: CronJob }) {
  const columns: Column<CronRun>[] = [
    { header: 'Started', cell: (run) => formatTime(run.startedAt) },
    { header: 'Trigger', cell: (run) => run.trigger },
    {
      header: 'Status',
      cell: (run) => (
        <>
          <StatusBadge status={run.status} />
          {run.error ? <span className="muted"> {run.error.message}</span> : null}
        </>
      ),
    },
    { header: 'Duration', cell: (run) => duration(run.durationMs) },
    { header: 'Exit code', cell: (run) => (run.exitCode === null ? '—' : String(run.exitCode)) },
    {
      header: 'Output',
      cell: (run) =>
        run.output === '' ? (
          <span className="muted">none</span>
        ) : (
          <details>
            <summary>{run.outputTruncated ? 'Output (its end)' : 'Output'}</summary>
            <pre className="cron-output">{run.output}</pre>
          </details>
        ),
    },
  ]
  return (
    <CursorTable<CronRun>
      list={api.list('/api/v1/sites/{id}/cron-jobs/{cronJobId}/runs', {
        params: { path: { id: site.id, cronJobId: job.id }, query: { limit: 20 } },
      })}
      columns={columns}
      caption={`Runs of ${job.schedule}`}
      rowKey={(run) => run.id}
      // Read again each second while a run goes, and now and then for the runs its schedule starts.
      refreshMs={(runs) => (runs.some((run) => run.status === 'running') ? 1000 : 15_000)}
      empty="No runs yet."
    />
  )
}

function Jobs({ site }: { site: Site }) {
  const { can } = useSession()
  const manage = can('cron:manage')
  const [editing, setEditing] = useState<CronJob | null>(null)
  const [showing, setShowing] = useState<CronJob | null>(null)
  const path = (job: CronJob) => ({ params: { path: { id: site.id, cronJobId: job.id } } })
  const toggle = useAction((job: CronJob) =>
    unwrap(
      api.PATCH('/api/v1/sites/{id}/cron-jobs/{cronJobId}', {
        ...path(job),
        body: { enabled: !job.enabled },
      }),
    ),
  )
  const runNow = useAction(
    (job: CronJob) => unwrap(api.POST('/api/v1/sites/{id}/cron-jobs/{cronJobId}/run', path(job))),
    (_run, job) => setShowing(job),
  )
  const remove = useAction(
    (job: CronJob) => unwrap(api.DELETE('/api/v1/sites/{id}/cron-jobs/{cronJobId}', path(job))),
    (_answer, job) => {
      if (editing?.id === job.id) setEditing(null)
      if (showing?.id === job.id) setShowing(null)
    },
  )
  const columns: Column<CronJob>[] = [
    {
      header: 'Schedule',
      cell: (job) => (
        <>
          <code>{job.schedule}</code>
          <br />
          <span className="muted">{job.nextRunAt ? `next ${formatTime(job.nextRunAt)}` : 'disabled'}</span>
        </>
      ),
    },
    { header: 'Runs', cell: (job) => (job.kind === 'wp-cron' ? 'WP-Cron' : <code>{job.command}</code>) },
    {
      header: 'Last run',
      cell: (job) =>
        job.lastRunAt ? (
          <>
            <StatusBadge status={job.lastStatus ?? 'running'} /> {formatTime(job.lastRunAt)}
          </>
        ) : (
          'never'
        ),
    },
    {
      header: 'Actions',
      cell: (job) => (
        <div className="actions">
          <button type="button" onClick={() => setShowing(job)}>
            Runs of {job.schedule}
          </button>
          {manage ? (
            <>
              <button type="button" disabled={runNow.isPending} onClick={() => runNow.mutate(job)}>
                Run now
              </button>
              <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(job)}>
                {job.enabled ? 'Disable' : 'Enable'}
              </button>
              <button type="button" onClick={() => setEditing(job)}>
                Edit
              </button>
              <ConfirmButton
                confirmLabel={`Confirm delete ${job.schedule}`}
                disabled={remove.isPending}
                onConfirm={() => remove.mutate(job)}
              >
                Delete
              </ConfirmButton>
            </>
          ) : null}
        </div>
      ),
    },
  ]
  return (
    <>
      <Section title="Cron jobs">
        <p className="muted">
          Jobs run on the site’s server as the site’s user, inside its limits, at the minutes their schedule
          names (UTC). A job runs once at a time: a run due while the previous one still runs is skipped.
        </p>
        <ActionError action={toggle} />
        <ActionError action={runNow} />
        <ActionError action={remove} />
        <CursorTable<CronJob>
          list={api.list('/api/v1/sites/{id}/cron-jobs', {
            params: { path: { id: site.id }, query: { limit: 50 } },
          })}
          columns={columns}
          caption="Cron jobs"
          rowKey={(job) => job.id}
          refreshMs={(jobs) => (jobs.some((job) => job.lastStatus === 'running') ? 2000 : 30_000)}
          empty="No cron jobs yet."
        />
      </Section>
      {editing ? (
        <Section title={`Edit ${editing.schedule}`}>
          <EditCronJobForm key={editing.id} site={site} job={editing} onDone={() => setEditing(null)} />
        </Section>
      ) : null}
      {showing ? (
        <Section title={`Runs of ${showing.schedule}`}>
          <Runs key={showing.id} site={site} job={showing} />
        </Section>
      ) : null}
    </>
  )
}

export function SiteCronPage({ id }: { id: string }) {
  const { can } = useSession()
  return (
    <SiteFrame id={id} title="Cron jobs">
      {(site) => (
        <>
          <Jobs site={site} />
          {can('cron:manage') ? (
            <Section title="New cron job">
              <NewCronJobForm site={site} />
            </Section>
          ) : null}
        </>
      )}
    </SiteFrame>
  )
}
