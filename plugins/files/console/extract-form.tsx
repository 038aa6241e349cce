// Extracting one zip or tar.gz into a folder, as a job followed live (the node checks every entry first: nothing
// of an archive that would escape its folder is extracted).

import type { ReactNode } from 'react'
import { CheckboxField, TextField, textOf, unwrap, useApiForm } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { FileActionForm } from './file-action-form.tsx'
import { FileJob } from './file-job.tsx'
import { joinPath, parentOf, withoutArchiveExtension } from './paths.ts'

type SiteFile = Schemas['SiteFile']

export function ExtractForm({
  siteId,
  item,
  report,
}: {
  siteId: string
  item: SiteFile
  report: (outcome: ReactNode) => void
}) {
  const form = useApiForm(
    async (data) => {
      const to = textOf(data, 'to') ?? ''
      const accepted = await unwrap(
        api.POST('/api/v1/sites/{id}/files/extract', {
          params: { path: { id: siteId } },
          body: { path: item.path, to, overwrite: data.get('overwrite') === 'true' },
        }),
      )
      return { ...accepted, to }
    },
    {
      onSuccess: ({ jobId, to }) =>
        report(<FileJob jobId={jobId} what={`Extracting ${item.path} into ${to}`} />),
    },
  )
  return (
    <FileActionForm form={form} submit="Extract">
      <TextField
        form={form}
        name="to"
        label="Extract into"
        defaultValue={joinPath(parentOf(item.path), withoutArchiveExtension(item.name))}
        hint="A folder: made when missing; one that has files needs the box below."
        autoComplete="off"
      />
      <CheckboxField form={form} name="overwrite" label="Extract into a folder that has files" />
    </FileActionForm>
  )
}
