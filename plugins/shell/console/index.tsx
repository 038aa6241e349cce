// The shell plugin's console page: a site's terminal (its tab), with commands run as jobs. The terminal (xterm.js,
// the largest part of the app) is loaded when first opened; its style sheet is small and ships with the app, since
// a style sheet of a lazily loaded part would need loading by hand.

import '@xterm/xterm/css/xterm.css'
import { lazy, Suspense } from 'react'
import { defineConsolePages, Loading } from '../../console/kit.ts'
import { siteIsOnNode } from '../../sites/console/contract.ts'
import './shell.css'

const TerminalPage = lazy(() =>
  import('./terminal-page.tsx').then((module) => ({ default: module.TerminalPage })),
)

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/terminal',
      tab: { of: '/sites/:id', label: 'Terminal', order: 20, scope: 'site:shell', shownFor: siteIsOnNode },
      render: ({ id = '' }) => (
        <Suspense fallback={<Loading label="Loading the terminal…" />}>
          <TerminalPage siteId={id} />
        </Suspense>
      ),
    },
  ],
})
