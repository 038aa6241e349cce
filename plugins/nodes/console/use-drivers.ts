// The node drivers this installation has (capabilities: the `nodes` plugin's `drivers`), for the driver choice.

import { useQuery } from '@tanstack/react-query'
import { type ConsoleSchemas, consoleApi } from '../../console/kit.ts'

/** A node driver as capabilities describe it. */
export interface NodeDriver {
  readonly name: string
  readonly description: string
}

/** The drivers in capabilities (free-form there, so read defensively). */
function driversOf(capabilities: ConsoleSchemas['Capabilities']): NodeDriver[] {
  const nodes = capabilities.installation.plugins.find((plugin) => plugin.name === 'nodes')
  const drivers = (nodes?.capabilities as { drivers?: unknown } | undefined)?.drivers
  return Array.isArray(drivers) ? (drivers as NodeDriver[]) : []
}

/** The react-query result of the installed drivers, from the capabilities every page shares. */
export function useDrivers() {
  return useQuery({ ...consoleApi.query('/api/v1/capabilities'), staleTime: 300_000, select: driversOf })
}
