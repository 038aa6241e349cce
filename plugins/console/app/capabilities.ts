// What this installation offers (`GET /capabilities`), read once and shared: a page offers only what will work.

import { useQuery } from '@tanstack/react-query'
import { api } from './api/client.ts'

export function useCapabilities() {
  return useQuery({ ...api.query('/api/v1/capabilities'), staleTime: 300_000 })
}

/** What a plugin adds to capabilities (free-form in the document, so read as a record); null when not mounted. */
export function usePluginCapabilities(plugin: string): Readonly<Record<string, unknown>> | null | undefined {
  const capabilities = useCapabilities()
  if (!capabilities.data) return undefined
  const found = capabilities.data.installation.plugins.find((entry) => entry.name === plugin)
  return found ? (found.capabilities as Record<string, unknown>) : null
}
