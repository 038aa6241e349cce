// What can be done with the entries ticked in the list: delete and archive any number; move, copy, change the
// mode of, download or extract one. Each action's form opens on demand, so the panel stays short.

import { type ReactNode, useState } from 'react'
import { Link, Section } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { ArchiveForm } from './archive-form.tsx'
import { ChmodForm } from './chmod-form.tsx'
import { DeleteSelected } from './delete-selected.tsx'
import { DownloadButton } from './download-button.tsx'
import { ExtractForm } from './extract-form.tsx'
import { MoveCopyForm } from './move-copy-form.tsx'
import { archiveFormatOf, editorPage } from './paths.ts'

type SiteFile = Schemas['SiteFile']
type Action = 'move' | 'copy' | 'chmod' | 'archive' | 'extract'

const actionLabels: Readonly<Record<Action, string>> = {
  move: 'Rename or move…',
  copy: 'Copy…',
  chmod: 'Change mode…',
  archive: 'Archive…',
  extract: 'Extract…',
}

export function SelectionActions({
  siteId,
  dir,
  selected,
  onClear,
  onGone,
  report,
}: {
  siteId: string
  dir: string
  selected: readonly SiteFile[]
  onClear: () => void
  /** Paths deleted or moved away: no longer selectable. */
  onGone: (paths: readonly string[]) => void
  report: (outcome: ReactNode) => void
}) {
  const [open, setOpen] = useState<Action | null>(null)
  const only = selected.length === 1 ? (selected[0] as SiteFile) : null
  const actions: Action[] = ['archive']
  if (only) {
    actions.unshift('move', 'copy')
    if (only.type === 'file' || only.type === 'directory') actions.push('chmod')
    if (only.type === 'file' && archiveFormatOf(only.name)) actions.push('extract')
  }
  const shown = open && actions.includes(open) ? open : null
  const panelId = `files-action-${shown ?? 'none'}`
  if (selected.length === 0)
    return (
      <Section title="Selected">
        <p className="muted">
          Tick entries in the list to rename, move, copy, delete, archive, extract or download them.
        </p>
      </Section>
    )
  return (
    <Section
      title="Selected"
      actions={
        <button type="button" className="link-button" onClick={onClear}>
          Clear selection
        </button>
      }
    >
      <p>
        {selected.length === 1 ? '1 entry: ' : `${selected.length} entries: `}
        {selected.map((item, index) => (
          <span key={item.path}>
            {index > 0 ? ', ' : ''}
            <code>{item.name}</code>
          </span>
        ))}
      </p>
      <div className="files-actions">
        {actions.map((action) => (
          <button
            key={action}
            type="button"
            className="button secondary"
            aria-expanded={shown === action}
            aria-controls={shown === action ? panelId : undefined}
            onClick={() => setOpen(shown === action ? null : action)}
          >
            {actionLabels[action]}
          </button>
        ))}
        {only?.type === 'file' ? <DownloadButton siteId={siteId} path={only.path} /> : null}
        {only?.type === 'file' ? (
          <Link className="button secondary" to={editorPage(siteId, only.path)}>
            Open in editor
          </Link>
        ) : null}
        <DeleteSelected
          siteId={siteId}
          paths={selected.map((item) => item.path)}
          onDeleted={onGone}
          report={report}
        />
      </div>
      {/* Keys name the action too: children keyed alike would be one component to React, moved between slots
          with the last form's state. */}
      {shown ? (
        <div id={panelId} className="files-action-panel">
          {shown === 'move' && only ? (
            <MoveCopyForm
              key={`move:${only.path}`}
              siteId={siteId}
              item={only}
              mode="move"
              report={report}
              onDone={() => {
                setOpen(null)
                onGone([only.path])
              }}
            />
          ) : null}
          {shown === 'copy' && only ? (
            <MoveCopyForm
              key={`copy:${only.path}`}
              siteId={siteId}
              item={only}
              mode="copy"
              report={report}
              onDone={() => setOpen(null)}
            />
          ) : null}
          {shown === 'chmod' && only ? (
            <ChmodForm key={`chmod:${only.path}`} siteId={siteId} item={only} report={report} />
          ) : null}
          {shown === 'extract' && only ? (
            <ExtractForm key={`extract:${only.path}`} siteId={siteId} item={only} report={report} />
          ) : null}
          {shown === 'archive' ? (
            <ArchiveForm
              key={`archive:${selected.map((item) => item.path).join('\n')}`}
              siteId={siteId}
              dir={dir}
              paths={selected.map((item) => item.path)}
              report={report}
            />
          ) : null}
        </div>
      ) : null}
    </Section>
  )
}
