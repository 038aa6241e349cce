// A folder's entries as a table, a page at a time: folders open in place, files in the editor, links show where
// they point (the API never follows them). Each row has a checkbox so actions can take several entries.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { formatBytes, formatTime } from '../../components/format.ts'
import { Link } from '../../router.tsx'
import { editorPage, folderPage } from './paths.ts'

type SiteFile = Schemas['SiteFile']

const typeLabels: Readonly<Record<SiteFile['type'], string>> = {
  directory: 'Folder',
  file: 'File',
  link: 'Link',
  other: 'Special file',
}

/** The query key of a folder's listing; `['files', siteId]` covers every folder of the site. */
export function folderKey(siteId: string, dir: string): readonly unknown[] {
  return ['files', siteId, 'list', dir]
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
      queryKey={folderKey(siteId, dir)}
      load={(cursor) =>
        unwrap(
          api.GET('/api/v1/sites/{id}/files', {
            params: { path: { id: siteId }, query: { path: dir, limit: 100, ...(cursor ? { cursor } : {}) } },
          }),
        )
      }
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
