// The dashboard: what the caller's view holds (`GET /usage`), its limits when it is one customer, and traffic per
// hour over the last day and per day over the last week.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas } from '../api/client.ts'
import { BarChart } from '../components/bar-chart.tsx'
import { formatBytes, formatCount } from '../components/format.ts'
import { PageHeader, Section } from '../components/page.tsx'
import { ErrorNotice, Loading } from '../components/states.tsx'
import { UseMeter } from '../components/use-meter.tsx'
import { usePages } from '../pages-context.tsx'
import { useSession } from '../session.tsx'

type Usage = Schemas['Usage']

const hour = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric' })

function Card({ label, value }: { label: string; value: string }) {
  return (
    <div className="card">
      <p className="card-label">{label}</p>
      <p className="card-value">{value}</p>
    </div>
  )
}

/** How the limits' keys read in words (plans limit these four; another plugin's metric shows its key). */
const limitLabels: Readonly<Record<string, string>> = {
  sites: 'Sites',
  domains: 'Domains',
  diskMB: 'Disk (MB)',
  databases: 'Databases',
}

function QuotaTable({ quota }: { quota: NonNullable<Usage['quota']> }) {
  const rows = Object.entries(quota.limits) as [
    string,
    { limit: number | null; used: number; available: number | null },
  ][]
  return (
    <Section title="Limits">
      <p className="muted">
        {quota.source === 'suspended'
          ? 'Every subscription is suspended: nothing new can be created.'
          : quota.source === 'default'
            ? 'No subscription: the installation’s default limits apply.'
            : 'The limits of the active subscriptions.'}
      </p>
      <table>
        <caption className="visually-hidden">Limits and use</caption>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col">Used</th>
            <th scope="col">Limit</th>
            <th scope="col">Use</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, { limit, used }]) => (
            <tr key={name}>
              <td>{limitLabels[name] ?? name}</td>
              <td>{formatCount(used)}</td>
              <td>{limit === null ? 'none' : formatCount(limit)}</td>
              <td>
                <UseMeter label={limitLabels[name] ?? name} used={used} limit={limit} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

/** What the modules flag (failed sites, ...), each shown to callers holding its scope. */
function Notices() {
  const { can } = useSession()
  const { notices } = usePages()
  const shown = notices.filter((notice) => notice.scope === null || can(notice.scope))
  if (shown.length === 0) return null
  return (
    <div className="dashboard-notices" data-testid="dashboard-notices">
      {shown.map((notice) => (
        <div key={notice.name}>{notice.render()}</div>
      ))}
    </div>
  )
}

export function Dashboard() {
  const { staff, me } = useSession()
  const usage = useQuery(api.query('/api/v1/usage'))
  const title = staff
    ? 'Dashboard'
    : `Welcome${me.memberships.length === 1 ? `, ${me.memberships[0]?.customerName ?? ''}` : ''}`
  if (usage.isPending)
    return (
      <>
        <PageHeader title={title} />
        <Loading />
      </>
    )
  if (usage.isError)
    return (
      <>
        <PageHeader title={title} />
        <ErrorNotice error={usage.error} />
      </>
    )
  const data = usage.data
  return (
    <>
      <PageHeader title={title} subtitle={staff ? 'Everything in your view, as it stands now.' : undefined} />
      <Notices />
      <div className="cards" data-testid="usage-cards">
        {staff ? <Card label="Customers" value={formatCount(data.customers)} /> : null}
        <Card label="Sites" value={formatCount(data.sites)} />
        <Card label="Domains" value={formatCount(data.domains)} />
        <Card label="Databases" value={formatCount(data.databases)} />
        <Card label="Disk used" value={formatBytes(data.disk.usedBytes)} />
        <Card label="Requests, 24 h" value={formatCount(data.traffic.last24h.requests)} />
        <Card label="Traffic, 7 days" value={formatBytes(data.traffic.last7d.bytes)} />
      </div>
      <Section title="Traffic">
        <div className="charts">
          <BarChart
            title="Requests per hour, last 24 hours"
            bars={data.traffic.hourly.map((bucket) => ({
              label: hour.format(new Date(bucket.start)),
              value: bucket.requests,
            }))}
          />
          <BarChart
            title="Traffic per day, last 7 days"
            bars={data.traffic.daily.map((bucket) => ({
              label: day.format(new Date(bucket.start)),
              value: bucket.bytes,
            }))}
            format={formatBytes}
          />
        </div>
      </Section>
      <Section title="Resources">
        <BarChart
          title="Sites and databases"
          bars={[
            { label: 'Sites', value: data.sites },
            { label: 'Domains', value: data.domains },
            { label: 'Databases', value: data.databases },
          ]}
        />
      </Section>
      {data.quota ? <QuotaTable quota={data.quota} /> : null}
    </>
  )
}
