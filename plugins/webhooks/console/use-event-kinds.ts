// The event kinds this installation emits (capabilities: `installation.eventKinds`), for choosing what an endpoint
// receives.

import { useQuery } from '@tanstack/react-query'
import { consoleApi } from '../../console/kit.ts'

/** The react-query result of the installation's event kinds, from the capabilities every page shares. */
export function useEventKinds() {
  return useQuery({
    ...consoleApi.query('/api/v1/capabilities'),
    staleTime: 300_000,
    select: (capabilities) => capabilities.installation.eventKinds,
  })
}

/** An endpoint's events in words: every kind, or the list. */
export function describeEvents(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ')
}
