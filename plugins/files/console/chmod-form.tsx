// Changing the permissions of one file or folder (three octal digits; never of a link).

import type { ReactNode } from 'react'
import { TextField, textOf, unwrap, useApiForm } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
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
