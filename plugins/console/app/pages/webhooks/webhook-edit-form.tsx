// Changing an endpoint's URL (checked again), the events it receives and its description.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { EventsFieldset, eventsOf } from './events-fieldset.tsx'

export function WebhookEditForm({ webhook }: { webhook: Schemas['Webhook'] }) {
  const queries = useQueryClient()
  const form = useApiForm(
    (data) =>
      unwrap(
        api.PATCH('/api/v1/webhooks/{id}', {
          params: { path: { id: webhook.id } },
          body: {
            url: textOf(data, 'url') ?? '',
            events: eventsOf(data),
            description: textOf(data, 'description') ?? null,
          },
        }),
      ),
    {
      onSuccess: (changed) => {
        queries.setQueryData(['webhooks', webhook.id], changed)
        void queries.invalidateQueries({ queryKey: ['webhooks', 'list'] })
      },
    },
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <TextField
        form={form}
        name="url"
        label="URL"
        type="url"
        defaultValue={webhook.url}
        required
        autoComplete="off"
      />
      <EventsFieldset form={form} initial={webhook.events} />
      <TextField
        form={form}
        name="description"
        label="Description"
        defaultValue={webhook.description ?? ''}
        autoComplete="off"
      />
      <FormProblem form={form} />
      {form.result && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          Saved.
        </p>
      ) : null}
      <SubmitButton form={form}>Save changes</SubmitButton>
    </form>
  )
}
