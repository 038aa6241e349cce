// What a site is: its state, address, type, where it runs, whose it is and its limits.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { CustomerName } from '../../components/customer-name.tsx'
import { formatCount, formatTime } from '../../components/format.ts'
import { Facts } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link } from '../../router.tsx'
import { useSession } from '../../session.tsx'

export function SiteFacts({ site }: { site: Schemas['Site'] }) {
  const session = useSession()
  const nodeId = site.nodeId
  const node = useQuery({
    queryKey: ['sites', 'node', nodeId],
    queryFn: () => unwrap(api.GET('/api/v1/nodes/{id}', { params: { path: { id: nodeId ?? '' } } })),
    enabled: session.staff && session.can('node:read') && nodeId !== null,
    staleTime: 300_000,
  })
  const items: [string, React.ReactNode][] = [
    ['Status', <StatusBadge key="status" status={site.status} />],
    ['Domain', site.domain],
    ['Type', site.type],
    ['Handle', <code key="handle">{site.handle}</code>],
    ['Customer', <CustomerName key="customer" id={site.customerId} />],
  ]
  // Where a site runs is the operator's business; members see it only as part of the SFTP address.
  if (session.staff)
    items.push([
      'Node',
      site.nodeId ? (
        <Link key="node" to={`/nodes/${encodeURIComponent(site.nodeId)}`}>
          {node.data?.name ?? site.nodeId}
        </Link>
      ) : (
        'none yet'
      ),
    ])
  items.push(
    ['Disk quota', site.limits.diskMB === null ? 'unlimited' : `${formatCount(site.limits.diskMB)} MB`],
    ['Suspended by staff', site.suspendedByStaff ? 'Yes — stays suspended until staff unsuspend it' : 'No'],
    ['Created', formatTime(site.createdAt)],
    ['Updated', formatTime(site.updatedAt)],
    ['Identifier', <code key="id">{site.id}</code>],
  )
  return <Facts items={items} />
}
