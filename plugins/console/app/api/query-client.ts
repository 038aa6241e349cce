// The app's one query cache. Reads retry once; a refusal (4xx) never. The API client keeps it up to date after
// every change (api/query-keys.ts), so it lives beside the client rather than in the app's entry.

import { QueryClient } from '@tanstack/react-query'
import { ApiProblem } from './problem.ts'

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiProblem && error.status < 500) && count < 1,
      refetchOnWindowFocus: false,
    },
  },
})
