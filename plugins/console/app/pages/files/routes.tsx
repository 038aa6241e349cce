// The files area's pages: a site's file manager, its text editor, and its terminal. The terminal (xterm.js, the
// largest part of the app) is loaded when first opened; its style sheet is small and ships with the app, since a
// style sheet of a lazily loaded part would need loading by hand.

import '@xterm/xterm/css/xterm.css'
import { lazy, Suspense } from 'react'
import { Loading } from '../../components/states.tsx'
import type { RouteDefinition } from '../../router.tsx'
import { FileEditorPage } from './file-editor.tsx'
import { FileManagerPage } from './file-manager.tsx'
import './files.css'

const TerminalPage = lazy(() =>
  import('./terminal-page.tsx').then((module) => ({ default: module.TerminalPage })),
)

export const fileRoutes: RouteDefinition[] = [
  { path: '/sites/:id/files', render: ({ id = '' }) => <FileManagerPage siteId={id} /> },
  { path: '/sites/:id/files/edit', render: ({ id = '' }) => <FileEditorPage siteId={id} /> },
  {
    path: '/sites/:id/terminal',
    render: ({ id = '' }) => (
      <Suspense fallback={<Loading label="Loading the terminal…" />}>
        <TerminalPage siteId={id} />
      </Suspense>
    ),
  },
]
