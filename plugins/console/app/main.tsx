// The app's entry: one query cache, the app, and its styles. Reads retry once; a refusal (4xx) never.

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiProblem } from './api/problem.ts'
import { App } from './app.tsx'
import './styles.css'

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiProblem && error.status < 500) && count < 1,
      refetchOnWindowFocus: false,
    },
  },
})

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queries}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  )
