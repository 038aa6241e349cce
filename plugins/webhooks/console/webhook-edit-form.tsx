// Changing an endpoint's URL (checked again), the events it receives and its description.

import {
  FormProblem,
  SavedNotice,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { EventsFieldset, eventsOf } from './events-fieldset.tsx'

export function WebhookEditForm({ webhook }: { webhook: Schemas['Webhook'] }) {
  const form = useEditForm((data) =>
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
      <SavedNotice form={form} />
      <SubmitButton form={form}>Save changes</SubmitButton>
    </form>
  )
}
