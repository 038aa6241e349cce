// Installs a plugin or theme from a zip already in the site (uploaded with Files or SFTP); the API installs from
// such a zip only, not from WordPress.org by slug.

import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../../console/kit.ts'

export function WordPressPackageForm({
  kind,
  install,
}: {
  kind: 'plugin' | 'theme'
  install: (path: string) => Promise<unknown>
}) {
  const form = useApiForm<unknown>((data) => install(textOf(data, 'path') ?? ''), {
    resetOnSuccess: true,
  })
  return (
    <form onSubmit={form.submit} noValidate className="form-inline">
      <TextField
        form={form}
        name="path"
        label={`Zip file of the ${kind}`}
        placeholder={`/tmp/my-${kind}.zip`}
        hint="A path in the site: upload the zip with Files or SFTP first. It is installed inactive."
        autoComplete="off"
      />
      <div>
        <SubmitButton form={form}>{kind === 'plugin' ? 'Install plugin' : 'Install theme'}</SubmitButton>
      </div>
      <FormProblem form={form} />
      {form.result && !form.pending ? (
        <p className="notice notice-info" role="status">
          Installed.
        </p>
      ) : null}
    </form>
  )
}
