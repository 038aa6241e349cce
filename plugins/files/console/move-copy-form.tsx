// Renaming or moving one entry (its whole new path), or copying it; a name already taken is refused unless the
// user says to replace it (folders are never replaced).

import type { ReactNode } from 'react'
import { CheckboxField, TextField, unwrap, useApiForm } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { FileActionForm } from './file-action-form.tsx'

type SiteFile = Schemas['SiteFile']

/** Where a copy goes unless the user says otherwise: `name-copy.ext` beside it. */
function copyPathOf(item: SiteFile): string {
  const dot = item.type === 'file' ? item.path.lastIndexOf('.') : -1
  const slash = item.path.lastIndexOf('/')
  return dot > slash + 1 ? `${item.path.slice(0, dot)}-copy${item.path.slice(dot)}` : `${item.path}-copy`
}

export function MoveCopyForm({
  siteId,
  item,
  mode,
  onDone,
  report,
}: {
  siteId: string
  item: SiteFile
  mode: 'move' | 'copy'
  onDone: () => void
  report: (outcome: ReactNode) => void
}) {
  const form = useApiForm(
    (data) => {
      const body = {
        from: item.path,
        to: String(data.get('to') ?? ''),
        overwrite: data.get('overwrite') === 'true',
      }
      const params = { path: { id: siteId } }
      return unwrap(
        mode === 'move'
          ? api.POST('/api/v1/sites/{id}/files/move', { params, body })
          : api.POST('/api/v1/sites/{id}/files/copy', { params, body }),
      )
    },
    {
      onSuccess: (file) => {
        report(
          <p>
            {mode === 'move' ? 'Moved' : 'Copied'} <code>{item.path}</code> to <code>{file.path}</code>.
          </p>,
        )
        onDone()
      },
    },
  )
  return (
    <FileActionForm form={form} submit={mode === 'move' ? 'Move' : 'Copy'}>
      <TextField
        form={form}
        name="to"
        label={mode === 'move' ? 'New path' : 'Copy to'}
        defaultValue={mode === 'move' ? item.path : copyPathOf(item)}
        hint={mode === 'move' ? 'The whole new path: change the name to rename.' : undefined}
        autoComplete="off"
      />
      <CheckboxField form={form} name="overwrite" label="Replace a file already there" />
    </FileActionForm>
  )
}
