// The files plugin's console pages: a site's file manager (its tab) and text editor.

import { defineConsolePages } from '../../console/kit.ts'
import { siteIsOnNode } from '../../sites/console/contract.ts'
import { FileEditorPage } from './file-editor.tsx'
import { FileManagerPage } from './file-manager.tsx'
import './files.css'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/files',
      tab: { of: '/sites/:id', label: 'Files', order: 10, scope: 'site:files', shownFor: siteIsOnNode },
      render: ({ id = '' }) => <FileManagerPage siteId={id} />,
    },
    { path: '/sites/:id/files/edit', render: ({ id = '' }) => <FileEditorPage siteId={id} /> },
  ],
})
