// `/sites/new`: creates a site for a customer, then shows the WordPress administrator's generated password once
// and follows the provisioning job live.

import { useState } from 'react'
import {
  CustomerField,
  ErrorNotice,
  Fieldset,
  FormProblem,
  JobProgress,
  Link,
  Loading,
  numberOf,
  PageHeader,
  SecretOnce,
  Section,
  SelectField,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useIdempotencyKey,
  useSession,
} from '../../console/kit.ts'
import { NodeField } from '../../nodes/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { useSiteTypes } from './use-site-types.ts'

type CreateSiteBody = Schemas['CreateSiteBody']
type CreatedSite = Schemas['CreatedSite']

/** The create body from the form: empty optional fields are left out so the API's defaults apply. */
function bodyOf(data: FormData): CreateSiteBody {
  const type = textOf(data, 'type') ?? ''
  const diskMB = numberOf(data, 'limits.diskMB')
  const wordpress = {
    adminUser: textOf(data, 'wordpress.adminUser'),
    adminEmail: textOf(data, 'wordpress.adminEmail'),
    // A password is taken as typed: spaces may be part of it.
    adminPassword: (data.get('wordpress.adminPassword') as string | null) || undefined,
  }
  const hasWordPress = Object.values(wordpress).some((value) => value !== undefined)
  // A `php` or `static` site's document root (the php plugin's create option).
  const root = type === 'php' || type === 'static' ? textOf(data, `${type}.root`) : undefined
  return {
    customerId: textOf(data, 'customerId') ?? '',
    name: textOf(data, 'name') ?? '',
    domain: textOf(data, 'domain') ?? '',
    type,
    ...(diskMB !== undefined ? { limits: { diskMB } } : {}),
    ...(textOf(data, 'nodeId') ? { nodeId: textOf(data, 'nodeId') } : {}),
    ...(type === 'wordpress' && hasWordPress ? { wordpress } : {}),
    ...(root !== undefined ? { [type]: { root } } : {}),
  }
}

function Created({ site }: { site: CreatedSite }) {
  const to = `/sites/${encodeURIComponent(site.id)}`
  return (
    <Section title="Site created">
      <p>
        <strong>{site.name}</strong> ({site.domain}) is being set up on its node.
      </p>
      {site.wordpress?.adminPassword ? (
        <SecretOnce
          label={`WordPress admin password for ${site.wordpress.adminUser}`}
          value={site.wordpress.adminPassword}
        />
      ) : site.wordpress ? (
        <p className="muted">
          WordPress administrator: {site.wordpress.adminUser}, with the password you chose.
        </p>
      ) : null}
      {site.jobId ? <JobProgress jobId={site.jobId} /> : null}
      <p>
        <Link className="button" to={to}>
          Go to the site
        </Link>
      </p>
    </Section>
  )
}

export function NewSitePage() {
  const session = useSession()
  const types = useSiteTypes()
  const idempotency = useIdempotencyKey()
  const [type, setType] = useState<string | null>(null)
  const form = useApiForm<CreatedSite>(async (data) => {
    try {
      return await unwrap(
        api.POST('/api/v1/sites', {
          params: { header: { 'Idempotency-Key': idempotency.key() } },
          body: bodyOf(data),
        }),
      )
    } catch (error) {
      idempotency.afterFailure(error)
      throw error
    }
  })

  if (form.result)
    return (
      <>
        <PageHeader title="Create site" />
        <Created site={form.result} />
      </>
    )
  if (types.isPending)
    return (
      <>
        <PageHeader title="Create site" />
        <Loading />
      </>
    )
  if (types.isError)
    return (
      <>
        <PageHeader title="Create site" />
        <ErrorNotice error={types.error} />
      </>
    )
  const chosen = type ?? types.data[0]?.name ?? ''
  const description = types.data.find((entry) => entry.name === chosen)?.description
  return (
    <>
      <PageHeader
        title="Create site"
        // Where sites go is the provider's business: customers are told nothing of its nodes (sites.md).
        subtitle={
          session.staff && session.can('node:read')
            ? 'The site is placed on the ready active node with the fewest sites.'
            : undefined
        }
      />
      <form onSubmit={form.submit} noValidate>
        <CustomerField form={form} />
        <TextField form={form} name="name" label="Name" autoComplete="off" required />
        <TextField
          form={form}
          name="domain"
          label="Domain"
          hint="The site’s primary domain, e.g. shop.example.com."
          autoComplete="off"
          required
        />
        <SelectField
          form={form}
          name="type"
          label="Type"
          value={chosen}
          onChange={(event) => setType(event.target.value)}
          hint={description}
          options={types.data.map((entry) => ({ value: entry.name, label: entry.name }))}
        />
        <NodeField form={form} />
        <TextField
          form={form}
          name="limits.diskMB"
          label="Disk quota (MB)"
          type="number"
          min={0}
          inputMode="numeric"
          hint="Leave empty for the customer’s default."
        />
        {chosen === 'wordpress' ? (
          <Fieldset legend="WordPress administrator (optional)" className="sites-fieldset">
            <TextField
              form={form}
              name="wordpress.adminUser"
              label="Admin user"
              autoComplete="off"
              hint="Default: admin."
            />
            <TextField
              form={form}
              name="wordpress.adminEmail"
              label="Admin e-mail"
              type="email"
              autoComplete="off"
              hint="Default: admin@ and the site’s domain."
            />
            <TextField
              form={form}
              name="wordpress.adminPassword"
              label="Admin password"
              type="password"
              autoComplete="new-password"
              hint="12 to 72 characters, not all of one kind. Leave empty and the panel generates one, shown once."
            />
          </Fieldset>
        ) : null}
        {chosen === 'php' || chosen === 'static' ? (
          <TextField
            key={chosen}
            form={form}
            name={`${chosen}.root`}
            label="Document root (optional)"
            autoComplete="off"
            hint="A folder under htdocs/ the site is served from, e.g. public. Leave empty for htdocs/ itself."
          />
        ) : null}
        <FormProblem form={form} />
        <div className="actions">
          <SubmitButton form={form}>Create site</SubmitButton>
          <Link className="button secondary" to="/sites">
            Cancel
          </Link>
        </div>
      </form>
    </>
  )
}
