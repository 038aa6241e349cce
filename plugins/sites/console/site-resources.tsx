// What a site uses against its limits, on its page: a bar per kind (CPU, memory, processes, disk) against the limit
// it runs under, how often that limit was hit in the last 24 h, where the limit comes from, and where its node does
// not enforce it. Read live from the node every 15 s; a node away says so instead.

import { useQuery } from '@tanstack/react-query'
import { ApiProblem, ErrorNotice, formatCount, Loading, UseMeter } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Resources = Schemas['SiteResources']
type Kind = 'cpu' | 'memory' | 'processes' | 'disk'

const kinds: readonly { kind: Kind; label: string }[] = [
  { kind: 'cpu', label: 'CPU' },
  { kind: 'memory', label: 'Memory' },
  { kind: 'processes', label: 'Processes' },
  { kind: 'disk', label: 'Disk' },
]

/** How each unit reads after a figure. */
const unitText = { percent: '% of a core', MB: 'MB', processes: '' } as const

const sourceText = {
  site: 'set for this site',
  plan: 'from its plan',
  node: 'its node’s default',
  none: 'nothing sets one',
} as const

const figure = (value: number, unit: keyof typeof unitText) =>
  `${formatCount(Math.round(value))}${unitText[unit] ? ` ${unitText[unit]}` : ''}`

function Row({ label, use }: { label: string; use: Resources[Kind] }) {
  const { used, limit, unit, hits24h, enforced, source } = use
  return (
    <tr data-kind={label}>
      <th scope="row">{label}</th>
      <td>{figure(used, unit)}</td>
      <td>
        {limit === null ? 'none' : figure(limit, unit)} <span className="muted">({sourceText[source]})</span>
      </td>
      <td>
        <UseMeter
          label={label}
          used={used}
          limit={limit}
          format={(value) => figure(value, unit)}
          high={0.9}
        />
      </td>
      <td>{formatCount(hits24h)}</td>
      <td>{enforced ? 'Enforced' : <strong>Not enforced on this node</strong>}</td>
    </tr>
  )
}

/** The site's use against its limits; `siteId` is read from its node, so only a site that runs there. */
export function SiteResources({ siteId }: { siteId: string }) {
  const resources = useQuery({
    ...api.query('/api/v1/sites/{id}/resources', { params: { path: { id: siteId } } }),
    refetchInterval: 15_000,
    retry: false,
  })
  if (resources.isPending) return <Loading />
  if (resources.isError) {
    const error = resources.error
    if (error instanceof ApiProblem && error.status === 503)
      return (
        <p className="notice notice-info" role="status">
          {error.code === 'node_unavailable'
            ? 'The site’s node cannot be reached now, so what it uses is not known; its limits still hold there.'
            : 'The site’s node does not report what its sites use (its agent may be older than the panel).'}{' '}
          (<code>{error.code}</code>)
        </p>
      )
    return <ErrorNotice error={error} />
  }
  const current = resources.data
  return (
    <>
      <table className="site-resources" data-testid="site-resources">
        <caption className="visually-hidden">Use against limits</caption>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col">Used</th>
            <th scope="col">Limit</th>
            <th scope="col">Use</th>
            <th scope="col">Limit hit (24 h)</th>
            <th scope="col">On this node</th>
          </tr>
        </thead>
        <tbody>
          {kinds.map(({ kind, label }) => (
            <Row key={kind} label={label} use={current[kind]} />
          ))}
        </tbody>
      </table>
      <p className="hint">Read {new Date(current.at).toLocaleString()}.</p>
    </>
  )
}
