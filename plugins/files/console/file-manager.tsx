// The file manager of a site: a folder's entries (the folder in the address, `?path=/htdocs`, so it can be
// reloaded and shared), breadcrumbs up to the home, making folders, uploading, and actions on ticked entries.

import { useQueryClient } from '@tanstack/react-query'
import { type ReactNode, useState } from 'react'
import { Link, Section, useLocation, useSession } from '../../console/kit.ts'
import { SiteStateFrame } from '../../sites/console/contract.ts'
import type { Schemas } from './api.ts'
import { Breadcrumbs } from './breadcrumbs.tsx'
import { FileList, folderList } from './file-list.tsx'
import { NewFolderForm } from './new-folder-form.tsx'
import { baseName, cleanPath, folderPage, parentOf } from './paths.ts'
import { SelectionActions } from './selection-actions.tsx'
import { UploadForm } from './upload-form.tsx'

type SiteFile = Schemas['SiteFile']

/** The last action's outcome (a job in progress, a partial delete), kept until dismissed or replaced. */
function Report({ children, onDismiss }: { children: ReactNode; onDismiss: () => void }) {
  return (
    <div className="notice notice-info files-report" role="status">
      {children}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  )
}

function Folder({ siteId, dir, active }: { siteId: string; dir: string; active: boolean }) {
  const queries = useQueryClient()
  const [selected, setSelected] = useState<ReadonlyMap<string, SiteFile>>(new Map())
  const [report, setReport] = useState<ReactNode>(null)
  const toggle = (item: SiteFile, on: boolean) =>
    setSelected((previous) => {
      const next = new Map(previous)
      if (on) next.set(item.path, item)
      else next.delete(item.path)
      return next
    })
  const drop = (paths: readonly string[]) =>
    setSelected((previous) => {
      const next = new Map(previous)
      for (const path of paths) next.delete(path)
      return next
    })
  return (
    <>
      <Breadcrumbs siteId={siteId} path={dir} />
      {dir !== '/' ? (
        <p>
          <Link to={folderPage(siteId, parentOf(dir))}>
            Up to {parentOf(dir) === '/' ? 'the home folder' : baseName(parentOf(dir))}
          </Link>
        </p>
      ) : (
        <p className="muted">
          The site’s home: <code>htdocs</code> is what the web server serves, <code>tmp</code> its temporary
          files, <code>logs</code> its logs (read-only).
        </p>
      )}
      {/* A site that is not running refuses every change: its notice says why, and no form invites one. */}
      {active ? (
        <Section title="Add to this folder">
          <NewFolderForm siteId={siteId} dir={dir} />
          <UploadForm siteId={siteId} dir={dir} />
        </Section>
      ) : null}
      {report ? <Report onDismiss={() => setReport(null)}>{report}</Report> : null}
      {active ? (
        <SelectionActions
          siteId={siteId}
          dir={dir}
          selected={[...selected.values()]}
          onClear={() => setSelected(new Map())}
          onGone={drop}
          report={setReport}
        />
      ) : null}
      <Section
        title="Contents"
        actions={
          <button
            type="button"
            className="button secondary"
            onClick={() => void queries.invalidateQueries({ queryKey: folderList(siteId, dir).queryKey })}
          >
            Refresh
          </button>
        }
      >
        <FileList siteId={siteId} dir={dir} selected={selected} onToggle={toggle} />
      </Section>
    </>
  )
}

export function FileManagerPage({ siteId }: { siteId: string }) {
  const session = useSession()
  const { query } = useLocation()
  const dir = cleanPath(query.get('path'))
  return (
    <SiteStateFrame siteId={siteId} title="Files">
      {(site) =>
        session.can('site:files') ? (
          // A new folder starts with nothing selected and no report of the last one.
          <Folder key={dir} siteId={siteId} dir={dir} active={site.status === 'active'} />
        ) : (
          <p className="notice notice-info">Your role does not include working with this site’s files.</p>
        )
      }
    </SiteStateFrame>
  )
}
