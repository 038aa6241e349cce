// `/jobs/:id`: one job's facts, its progress and output live (the job's event stream), its result or error, and
// Cancel while it runs and its kind allows it.

import { useMutation, useQuery } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { useCustomerNames } from '../../components/customer-name.tsx'
import { formatTime } from '../../components/format.ts'
import { JobProgress } from '../../components/job-progress.tsx'
import { Breadcrumbs, Facts, PageHeader, Section } from '../../components/page.tsx'
import { ErrorNotice, Loading } from '../../components/states.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { useSession } from '../../session.tsx'
import { SubjectLink } from './subject-link.tsx'

type Job = Schemas['Job']

const live = (job: Job) => job.status === 'queued' || job.status === 'running'

function CancelJob({ job }: { job: Job }) {
  const cancel = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/jobs/{id}/cancel', { params: { path: { id: job.id } } })),
  })
  return (
    <div>
      {job.cancelRequested ? (
        <p role="status">A cancel was asked for; the running step is being stopped.</p>
      ) : (
        <ConfirmButton
          confirmLabel="Confirm: cancel the job"
          onConfirm={() => cancel.mutate()}
          disabled={cancel.isPending}
        >
          Cancel job
        </ConfirmButton>
      )}
      {cancel.isError ? <ErrorNotice error={cancel.error} /> : null}
    </div>
  )
}

function Outcome({ job }: { job: Job }) {
  if (job.error)
    return (
      <div className="notice notice-error">
        <p>
          <strong>{job.status === 'failed' ? 'Failed' : 'The last attempt failed'}</strong>:{' '}
          {job.error.message} <code>{job.error.code}</code>
        </p>
        {job.status !== 'failed' && live(job) ? <p className="muted">It is retried.</p> : null}
      </div>
    )
  if (job.result) return <pre className="job-output">{JSON.stringify(job.result, null, 2)}</pre>
  return <p className="muted">{live(job) ? 'Not finished yet.' : 'No result.'}</p>
}

export function JobDetail({ id }: { id: string }) {
  const session = useSession()
  const customerName = useCustomerNames()
  const job = useQuery(api.query('/api/v1/jobs/{id}', { params: { path: { id } } }))
  const breadcrumbs = <Breadcrumbs to="/jobs" label="Jobs" here={id} />
  if (job.isPending) return <Loading />
  if (job.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Job" />
        <ErrorNotice error={job.error} />
      </>
    )
  const current = job.data
  return (
    <>
      {breadcrumbs}
      <PageHeader title={`Job ${current.kind}`} subtitle={current.id} />
      <Section title="Details">
        <Facts
          items={[
            ['Status', <StatusBadge key="status" status={current.status} />],
            ['Kind', <code key="kind">{current.kind}</code>],
            ['Subject', <SubjectLink key="subject" type={current.subject.type} id={current.subject.id} />],
            ['Customer', current.customerId ? customerName(current.customerId) : 'Staff work'],
            ['Attempts', `${current.attempts} of ${current.maxAttempts}`],
            ['Created', formatTime(current.createdAt)],
            ['Started', formatTime(current.startedAt)],
            ['Finished', formatTime(current.finishedAt)],
          ]}
        />
      </Section>
      <Section title="Progress">
        <JobProgress jobId={current.id} showOutput />
        {current.cancellable && live(current) && session.can('job:cancel') ? (
          <CancelJob job={current} />
        ) : null}
      </Section>
      <Section title="Result">
        <Outcome job={current} />
      </Section>
    </>
  )
}
