// `/jobs`: background work, newest first, filtered by status, kind, customer (staff) and subject. The filters live
// in the query string, so a filtered view can be shared.

import { api, type Schemas } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { useCustomerNames } from '../../components/customer-name.tsx'
import { formatTime } from '../../components/format.ts'
import { PageHeader } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { filtersOf } from './filters.ts'
import { JobFilters, jobFilterNames } from './job-filters.tsx'
import { SubjectLink } from './subject-link.tsx'

type Job = Schemas['Job']

export function JobList() {
  const session = useSession()
  const { query } = useLocation()
  const filters = filtersOf(query, jobFilterNames)
  const customerName = useCustomerNames()
  const filtered = Object.keys(filters).length > 0
  return (
    <>
      <PageHeader
        title="Jobs"
        subtitle="Work the panel does in the background: provisioning, suspensions, certificates, commands."
      />
      <JobFilters key={query.toString()} filters={filters} />
      <div className="activity-table">
        <CursorTable<Job>
          list={api.list('/api/v1/jobs', {
            params: { query: { ...filters, status: filters.status as Job['status'] | undefined } },
          })}
          caption="Jobs"
          rowKey={(job) => job.id}
          empty={
            filtered
              ? 'No job matches these filters.'
              : 'No jobs yet. Creating a site or a certificate starts one.'
          }
          columns={[
            {
              header: 'Kind',
              cell: (job) => (
                <Link to={`/jobs/${encodeURIComponent(job.id)}`}>
                  <code className="nowrap">{job.kind}</code>
                  <span className="visually-hidden"> job {job.id}</span>
                </Link>
              ),
            },
            {
              header: 'Subject',
              cell: (job) => <SubjectLink type={job.subject.type} id={job.subject.id} />,
            },
            ...(session.staff
              ? [
                  {
                    header: 'Customer',
                    cell: (job: Job) => (job.customerId ? customerName(job.customerId) : 'Staff work'),
                  },
                ]
              : []),
            { header: 'Status', cell: (job) => <StatusBadge status={job.status} /> },
            {
              header: 'Progress',
              cell: (job) => (
                <>
                  {job.progress}%{job.step ? <span className="muted"> {job.step}</span> : null}
                </>
              ),
            },
            { header: 'Created', cell: (job) => formatTime(job.createdAt) },
            { header: 'Finished', cell: (job) => formatTime(job.finishedAt) },
          ]}
        />
      </div>
    </>
  )
}
