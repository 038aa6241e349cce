// What a site is: its state, address, type, where it runs, whose it is and its limits.

import { CustomerName, Facts, formatCount, formatTime, StatusBadge, useSession } from '../../console/kit.ts'
import { NodeName } from '../../nodes/console/contract.ts'
import type { Schemas } from './api.ts'

export function SiteFacts({ site }: { site: Schemas['Site'] }) {
  const session = useSession()
  const items: [string, React.ReactNode][] = [
    ['Status', <StatusBadge key="status" status={site.status} />],
    ['Domain', site.domain],
    ['Type', site.type],
    ['Handle', <code key="handle">{site.handle}</code>],
    ['Customer', <CustomerName key="customer" id={site.customerId} />],
  ]
  // Where a site runs is the operator's business; members see it only as part of the SFTP address.
  if (session.staff) items.push(['Node', site.nodeId ? <NodeName key="node" id={site.nodeId} /> : 'none yet'])
  items.push(
    ['Disk quota', site.limits.diskMB === null ? 'unlimited' : `${formatCount(site.limits.diskMB)} MB`],
    ['Suspended by staff', site.suspendedByStaff ? 'Yes — stays suspended until staff unsuspend it' : 'No'],
    ['Created', formatTime(site.createdAt)],
    ['Updated', formatTime(site.updatedAt)],
    ['Identifier', <code key="id">{site.id}</code>],
  )
  return <Facts items={items} />
}
