// A folder's entries as a table, a page at a time: folders open in place, files in the editor, links show where
// they point (the API never follows them). Each row has a checkbox so actions can take several entries.

import { CursorTable, formatBytes, formatTime, Link } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { editorPage, folderPage } from './paths.ts'

type SiteFile = Schemas['SiteFile']

const typeLabels: Readonly<Record<SiteFile['type'], string>> = {
  directory: 'Folder',
  file: 'File',
  link: 'Link',
  other: 'Special file',
}

/** A folder's listing, a hundred entries a page. */
export function folderList(siteId: string, dir: string) {
  return api.list('/api/v1/sites/{id}/files', {
    params: { path: { id: siteId }, query: { path: dir, limit: 100 } },
  })
}

function NameCell({ siteId, item }: { siteId: string; item: SiteFile }) {
  if (item.type === 'directory') return <Link to={folderPage(siteId, item.path)}>{item.name}/</Link>
  if (item.type === 'file') return <Link to={editorPage(siteId, item.path)}>{item.name}</Link>
  if (item.type === 'link')
    return (
      <span>
        {item.name} <span className="muted">→ {item.target ?? '?'}</span>
      </span>
    )
  return <span>{item.name}</span>
}

export function FileList({
  siteId,
  dir,
  selected,
  onToggle,
}: {
  siteId: string
  dir: string
  selected: ReadonlyMap<string, SiteFile>
  onToggle: (item: SiteFile, on: boolean) => void
}) {
  return (
    <CursorTable<SiteFile>
      list={folderList(siteId, dir)}
      caption={`Files in ${dir}`}
      rowKey={(item) => item.path}
      empty="This folder is empty. Upload files or make a folder above."
      columns={[
        {
          header: 'Select',
          cell: (item) => (
            <input
              type="checkbox"
              aria-label={`Select ${item.name}`}
              checked={selected.has(item.path)}
              onChange={(event) => onToggle(item, event.currentTarget.checked)}
            />
          ),
        },
        { header: 'Name', cell: (item) => <NameCell siteId={siteId} item={item} /> },
        { header: 'Type', cell: (item) => typeLabels[item.type] },
        { header: 'Size', cell: (item) => (item.type === 'directory' ? '—' : formatBytes(item.size)) },
        { header: 'Mode', cell: (item) => <code>{item.mode}</code> },
        { header: 'Modified', cell: (item) => formatTime(item.modifiedAt) },
      ]}
    />
  )
}
