// Changes a site's name, domain or disk quota (`PATCH /sites/{id}`); a new domain or quota is applied on the node
// by a job, which the site's page then follows.

import {
  changedFields,
  FormFooter,
  numberOf,
  SavedNotice,
  TextField,
  textOf,
  unchanged,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']
type UpdateSiteBody = Omit<Schemas['UpdateSiteBody'], 'drift'>

/** Only what the form changed, so an unchanged domain or quota starts no job on the node. */
function changesOf(site: Site, data: FormData): UpdateSiteBody {
  return changedFields<UpdateSiteBody>(
    { name: site.name, domain: site.domain, limits: { diskMB: site.limits.diskMB } },
    {
      name: textOf(data, 'name'),
      domain: textOf(data, 'domain') ?? '',
      // An empty quota removes the limit (null); the API says when the customer's limits require one.
      limits: { diskMB: numberOf(data, 'limits.diskMB') ?? null },
    },
  )
}

export function SiteEditForm({ site }: { site: Site }) {
  const form = useEditForm(async (data) => {
    const body = changesOf(site, data)
    if (Object.keys(body).length === 0) return unchanged
    return unwrap(api.PATCH('/api/v1/sites/{id}', { params: { path: { id: site.id } }, body }))
  })
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
      <SavedNotice form={form} />
      <FormFooter form={form}>Save changes</FormFooter>
    </form>
  )
}
