// The event kinds this installation emits (capabilities: `installation.eventKinds`), for choosing what an endpoint
// receives.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'

/** The react-query result of the installation's event kinds. */
export function useEventKinds() {
  return useQuery({
    queryKey: ['webhooks', 'event-kinds'],
    queryFn: async () => (await unwrap(api.GET('/api/v1/capabilities'))).installation.eventKinds,
    staleTime: 300_000,
  })
}

/** An endpoint's events in words: every kind, or the list. */
export function describeEvents(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ')
}
