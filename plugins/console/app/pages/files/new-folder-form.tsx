// Making a folder inside the folder on show.

import { useQueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { explanationOf } from './file-problem.tsx'
import { joinPath } from './paths.ts'

export function NewFolderForm({ siteId, dir }: { siteId: string; dir: string }) {
  const queries = useQueryClient()
  const form = useApiForm(
    // The field is named `path` so the API's refusal of `body.path` shows at it; the user types a name only.
    (data) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/files/directories', {
          params: { path: { id: siteId } },
          body: { path: joinPath(dir, textOf(data, 'path') ?? '') },
        }),
      ),
    {
      resetOnSuccess: true,
      onSuccess: () => void queries.invalidateQueries({ queryKey: ['files', siteId] }),
    },
  )
  return (
    <form className="files-folder-form" onSubmit={form.submit} noValidate>
      <div className="form-inline">
        <TextField form={form} name="path" label="Folder name" autoComplete="off" />
        <SubmitButton form={form}>Create folder</SubmitButton>
      </div>
      <FormProblem form={form} />
      {explanationOf(form.problem) ? (
        <p className="files-problem-hint">{explanationOf(form.problem)}</p>
      ) : null}
      {form.result && !form.problem && !form.pending ? (
        <p className="muted" role="status">
          Made {form.result.path}.
        </p>
      ) : null}
    </form>
  )
}
