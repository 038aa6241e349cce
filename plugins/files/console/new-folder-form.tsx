// Making a folder inside the folder on show.

import { TextField, textOf, unwrap, useApiForm } from '../../console/kit.ts'
import { api } from './api.ts'
import { FileActionForm } from './file-action-form.tsx'
import { joinPath } from './paths.ts'

export function NewFolderForm({ siteId, dir }: { siteId: string; dir: string }) {
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
    },
  )
  return (
    <FileActionForm
      form={form}
      submit="Create folder"
      className="files-folder-form"
      status={
        form.result && !form.problem && !form.pending ? (
          <p className="muted" role="status">
            Made {form.result.path}.
          </p>
        ) : null
      }
    >
      <TextField form={form} name="path" label="Folder name" autoComplete="off" />
    </FileActionForm>
  )
}
