// The events an endpoint receives: "All events" (`*`), or one checkbox per kind the installation emits. The
// checkboxes share the name `events`, so the form data is the body's list; errors at `body.events` and
// `body.events.<index>` show here.

import { useId, useState } from 'react'
import { type ApiForm, ErrorNotice, Fieldset } from '../../console/kit.ts'
import { useEventKinds } from './use-event-kinds.ts'

export function EventsFieldset<R>({
  form,
  initial = ['*'],
}: {
  form: ApiForm<R>
  initial?: readonly string[]
}) {
  const kinds = useEventKinds()
  const id = useId()
  const [all, setAll] = useState(initial.includes('*'))
  const list = kinds.data ?? []
  // Every place an error about the events may be, so the form's banner does not repeat them.
  form.register('events')
  for (let index = 0; index <= list.length; index++) form.register(`events.${index}`)
  const messages = (form.problem?.errors ?? [])
    .filter((item) => item.location === 'body.events' || item.location.startsWith('body.events.'))
    .map((item) => item.message)
  const invalid = messages.length > 0
  return (
    <Fieldset
      legend="Events"
      className="events-fieldset"
      aria-describedby={invalid ? `${id}-error` : `${id}-hint`}
    >
      <p className="hint" id={`${id}-hint`}>
        What the endpoint receives: every kind, now and in future, or the kinds you choose.
      </p>
      <div className="field checkbox">
        <input
          type="checkbox"
          id={`${id}-all`}
          name="events"
          value="*"
          checked={all}
          onChange={(event) => setAll(event.target.checked)}
          aria-invalid={invalid || undefined}
        />
        <label htmlFor={`${id}-all`}>All events</label>
      </div>
      {kinds.isPending ? <p className="muted">Loading event kinds…</p> : null}
      {kinds.isError ? <ErrorNotice error={kinds.error} /> : null}
      <div className="events-grid">
        {list.map((kind) => (
          <div className="field checkbox" key={kind}>
            <input
              type="checkbox"
              id={`${id}-${kind}`}
              name="events"
              value={kind}
              defaultChecked={initial.includes(kind)}
              disabled={all}
            />
            <label htmlFor={`${id}-${kind}`}>
              <code>{kind}</code>
            </label>
          </div>
        ))}
      </div>
      {invalid ? (
        <p className="field-error" id={`${id}-error`}>
          {messages.join(' ')}
        </p>
      ) : null}
    </Fieldset>
  )
}

/** The events the form's data names (disabled kinds under "All events" are not in it). */
export function eventsOf(data: FormData): string[] {
  return data.getAll('events').filter((value): value is string => typeof value === 'string')
}
