// Changing the permissions of one file or folder (three octal digits; never of a link).

import { useQueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { TextField, textOf, useApiForm } from '../../components/form.tsx'
import { FileActionForm } from './file-action-form.tsx'

type SiteFile = Schemas['SiteFile']

export function ChmodForm({
  siteId,
  item,
  report,
}: {
  siteId: string
  item: SiteFile
  report: (outcome: ReactNode) => void
}) {
  const queries = useQueryClient()
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/files/chmod', {
          params: { path: { id: siteId } },
          body: { path: item.path, mode: textOf(data, 'mode') ?? '' },
        }),
      ),
    {
      onSuccess: (file) => {
        report(
          <p>
            <code>{file.path}</code> now has mode <code>{file.mode}</code>.
          </p>,
        )
        void queries.invalidateQueries({ queryKey: ['files', siteId] })
      },
    },
  )
  return (
    <FileActionForm form={form} submit="Change mode">
      <TextField
        form={form}
        name="mode"
        label="Mode"
        defaultValue={item.mode}
        hint="Three octal digits: 644 for files, 755 for folders and scripts."
        autoComplete="off"
        inputMode="numeric"
        size={6}
      />
    </FileActionForm>
  )
}
