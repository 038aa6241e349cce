// The app's entry: the index of every module's pages (the console's own, then each mounted plugin's, which the
// bundler brings in as `plinth-console:pages`), one query cache, the app, and its styles.

import contributed from 'plinth-console:pages'
import { QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { queryClient } from './api/query-client.ts'
import { App } from './app.tsx'
import { indexPages } from './console-pages.ts'
import { ownPages } from './pages/own-pages.tsx'
import { PagesProvider } from './pages-context.tsx'
import './styles.css'

const pages = indexPages([ownPages, ...contributed])

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <PagesProvider value={pages}>
          <App />
        </PagesProvider>
      </QueryClientProvider>
    </StrictMode>,
  )
