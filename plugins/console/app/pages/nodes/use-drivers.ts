// The node drivers this installation has (capabilities: the `nodes` plugin's `drivers`), for the driver choice.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'

/** A node driver as capabilities describe it. */
export interface NodeDriver {
  readonly name: string
  readonly description: string
}

/** The react-query result of the installed drivers. */
export function useDrivers() {
  return useQuery({
    queryKey: ['nodes', 'drivers'],
    queryFn: async (): Promise<NodeDriver[]> => {
      const capabilities = await unwrap(api.GET('/api/v1/capabilities'))
      const nodes = capabilities.installation.plugins.find((plugin) => plugin.name === 'nodes')
      const drivers = (nodes?.capabilities as { drivers?: unknown } | undefined)?.drivers
      return Array.isArray(drivers) ? (drivers as NodeDriver[]) : []
    },
    staleTime: 300_000,
  })
}
