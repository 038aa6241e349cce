// `/webhooks/new`: staff add an endpoint; its signing secret is shown once.

import {
  BrandField,
  Breadcrumbs,
  CheckboxField,
  FormProblem,
  Link,
  PageHeader,
  SecretOnce,
  Section,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { EventsFieldset, eventsOf } from './events-fieldset.tsx'

export function WebhookNew() {
  const form = useApiForm((data) =>
    unwrap(
      api.POST('/api/v1/webhooks', {
        body: {
          url: textOf(data, 'url') ?? '',
          events: eventsOf(data),
          description: textOf(data, 'description') ?? null,
          enabled: data.get('enabled') === 'true',
          ...(textOf(data, 'brandId') ? { brandId: textOf(data, 'brandId') } : {}),
        },
      }),
    ),
  )
  const created = form.result
  return (
    <>
      <Breadcrumbs to="/webhooks" label="Webhooks" here="Add endpoint" />
      <PageHeader
        title="Add endpoint"
        subtitle="Events of the kinds you choose are POSTed to its URL, signed."
      />
      {created ? (
        <Section title="Endpoint added">
          <p className="webhook-url">
            Events now go to <code>{created.url}</code>. Verify each delivery’s <code>webhook-signature</code>{' '}
            with this secret (any Standard Webhooks library does).
          </p>
          <SecretOnce label="Signing secret" value={created.secret} />
          <p>
            <Link to={`/webhooks/${encodeURIComponent(created.id)}`} className="button">
              Open the endpoint
            </Link>
          </p>
        </Section>
      ) : (
        <Section title="Endpoint">
          <form onSubmit={form.submit} noValidate>
            <TextField
              form={form}
              name="url"
              label="URL"
              type="url"
              hint="An https:// address on a public host."
              placeholder="https://billing.example.com/plinth/webhooks"
              required
              autoComplete="off"
            />
            <EventsFieldset form={form} />
            <TextField
              form={form}
              name="description"
              label="Description"
              hint="Optional: what the endpoint is for."
              autoComplete="off"
            />
            <BrandField
              form={form}
              none="None: every event of the installation"
              hint="A brand’s endpoint receives only that brand’s events, and its staff manage it."
            />
            <CheckboxField form={form} name="enabled" label="Enabled" defaultChecked />
            <FormProblem form={form} />
            <SubmitButton form={form}>Add endpoint</SubmitButton>
          </form>
        </Section>
      )}
    </>
  )
}
