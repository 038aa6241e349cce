// The node a new site goes to, for platform staff (`nodeId` of `POST /sites`): automatic by default, or one of the
// active nodes, each saying whether it is ready (one that is not is refused, and the form says why). Shown to no one
// else: customers never learn what nodes there are.

import { useQuery } from '@tanstack/react-query'
import { type ApiForm, SelectField, useSession } from '../../console/kit.ts'
import { api } from './api.ts'

export function NodeField<R>({ form, name = 'nodeId' }: { form: ApiForm<R>; name?: string }) {
  const session = useSession()
  const staff = session.staff && session.can('node:read')
  const nodes = useQuery({
    ...api.query('/api/v1/nodes', { params: { query: { status: 'active', limit: 100 } } }),
    enabled: staff,
  })
  if (!staff) return null
  const options = [
    { value: '', label: 'Automatic: the ready node with the fewest sites' },
    ...(nodes.data?.items ?? []).map((node) => ({
      value: node.id,
      label: node.ready ? node.name : `${node.name} (not ready: ${node.notReady[0]?.message ?? 'unknown'})`,
    })),
  ]
  return (
    <SelectField
      form={form}
      name={name}
      label="Node"
      options={options}
      hint="Where the site runs. A node that is not ready receives no site."
    />
  )
}
