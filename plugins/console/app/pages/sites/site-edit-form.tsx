// Changes a site's name, domain or disk quota (`PATCH /sites/{id}`); a new domain or quota is applied on the node
// by a job, which the site's page then follows.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { FormProblem, numberOf, SubmitButton, TextField, textOf, useApiForm } from '../../components/form.tsx'

type Site = Schemas['Site']
type UpdateSiteBody = Schemas['UpdateSiteBody']

/** Only what the form changed, so an unchanged domain or quota starts no job on the node. */
function changesOf(site: Site, data: FormData): UpdateSiteBody {
  const body: UpdateSiteBody = {}
  const name = textOf(data, 'name')
  const domain = textOf(data, 'domain')
  // An empty quota removes the limit (null); the API says when the customer's limits require one.
  const diskMB = numberOf(data, 'limits.diskMB') ?? null
  if (name !== undefined && name !== site.name) body.name = name
  if (domain !== site.domain) body.domain = domain ?? ''
  if (diskMB !== site.limits.diskMB) body.limits = { diskMB }
  return body
}

export function SiteEditForm({ site }: { site: Site }) {
  const queries = useQueryClient()
  const form = useApiForm<Site | 'unchanged'>(
    async (data) => {
      const body = changesOf(site, data)
      if (Object.keys(body).length === 0) return 'unchanged'
      return unwrap(api.PATCH('/api/v1/sites/{id}', { params: { path: { id: site.id } }, body }))
    },
    {
      onSuccess: (result) => {
        if (result === 'unchanged') return
        queries.setQueryData(['sites', site.id], result)
        void queries.invalidateQueries({ queryKey: ['sites'] })
      },
    },
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <TextField form={form} name="name" label="Name" defaultValue={site.name} autoComplete="off" />
      <TextField
        form={form}
        name="domain"
        label="Domain"
        defaultValue={site.domain}
        autoComplete="off"
        hint="A WordPress site’s stored links keep the old address: run a search and replace afterwards."
      />
      <TextField
        form={form}
        name="limits.diskMB"
        label="Disk quota (MB)"
        type="number"
        min={0}
        inputMode="numeric"
        defaultValue={site.limits.diskMB ?? ''}
        hint="Empty for no limit."
      />
      <FormProblem form={form} />
      {form.result && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          {form.result === 'unchanged' ? 'Nothing to change.' : 'Saved.'}
        </p>
      ) : null}
      <div>
        <SubmitButton form={form}>Save changes</SubmitButton>
      </div>
    </form>
  )
}
