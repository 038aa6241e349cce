// Making a zip or tar.gz of the selected entries (all of the folder on show), as a job followed live.

import type { ReactNode } from 'react'
import { CheckboxField, SelectField, TextField, textOf, unwrap, useApiForm } from '../../console/kit.ts'
import { api } from './api.ts'
import { FileActionForm } from './file-action-form.tsx'
import { FileJob } from './file-job.tsx'
import { baseName, joinPath } from './paths.ts'

export function ArchiveForm({
  siteId,
  dir,
  paths,
  report,
}: {
  siteId: string
  dir: string
  paths: readonly string[]
  report: (outcome: ReactNode) => void
}) {
  const form = useApiForm(
    async (data) => {
      // The field is named `to` so a refusal of the archive's path shows at it; the format makes its extension.
      const to = joinPath(dir, `${textOf(data, 'to') ?? ''}.${String(data.get('format'))}`)
      const accepted = await unwrap(
        api.POST('/api/v1/sites/{id}/files/archive', {
          params: { path: { id: siteId } },
          body: { paths: [...paths], to, overwrite: data.get('overwrite') === 'true' },
        }),
      )
      return { ...accepted, to }
    },
    {
      onSuccess: ({ jobId, to }) => report(<FileJob jobId={jobId} what={`Making the archive ${to}`} />),
    },
  )
  const suggested = paths.length === 1 ? baseName(paths[0] ?? 'archive') : 'archive'
  return (
    <FileActionForm form={form} submit="Create archive">
      <TextField
        form={form}
        name="to"
        label="Archive name"
        defaultValue={suggested}
        hint={`Made in ${dir}, of the ${paths.length} selected.`}
        autoComplete="off"
      />
      <SelectField
        form={form}
        name="format"
        label="Format"
        options={[
          { value: 'zip', label: 'zip' },
          { value: 'tar.gz', label: 'tar.gz' },
        ]}
      />
      <CheckboxField form={form} name="overwrite" label="Replace an archive already there" />
    </FileActionForm>
  )
}
