// The restore form's lists: the paths that go back (one a line) and the databases (each with its tables); a refusal
// of the list or of one item shows at the list, naming the item.

import { type ApiForm, Fieldset } from '../../console/kit.ts'
import type { Backup } from './api.ts'
import { listRefusals } from './list-refusals.ts'

type Database = NonNullable<Backup['contents']>['databases'][number]

/** The paths typed, one a line, as they are sent. */
export function pathsOf(data: FormData): string[] {
  return String(data.get('files') ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
}

function Refusals({ id, messages }: { id: string; messages: readonly string[] }) {
  if (messages.length === 0) return null
  return (
    <div id={id}>
      {messages.map((message) => (
        <p className="field-error" key={message}>
          {message}
        </p>
      ))}
    </div>
  )
}

/** The paths to restore; `sent` are those the last attempt sent, to name the one refused. */
export function PathsField<R>({ form, sent }: { form: ApiForm<R>; sent: readonly string[] }) {
  form.register('files')
  const messages = listRefusals(
    form.problem?.errors ?? [],
    'files',
    (index) => sent[index] ?? `Path ${index + 1}`,
  )
  return (
    <div className={`field${messages.length ? ' has-error' : ''}`}>
      <label htmlFor="restore-paths">Paths</label>
      <textarea
        id="restore-paths"
        name="files"
        rows={4}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={messages.length ? true : undefined}
        aria-describedby={`restore-paths-hint${messages.length ? ' restore-paths-error' : ''}`}
      />
      <p className="hint" id="restore-paths-hint">
        One a line, as the file manager names them (/htdocs/wp-content/uploads): each becomes exactly the
        backup’s.
      </p>
      <Refusals id="restore-paths-error" messages={messages} />
    </div>
  )
}

/** The backup's databases to load back, each with its tables. */
export function DatabaseChoice<R>({ form, databases }: { form: ApiForm<R>; databases: readonly Database[] }) {
  form.register('databases')
  // The boxes are sent in the backup's order, so a refused item's place names the database checked there.
  const checked = (index: number) => {
    const boxes = document.querySelectorAll<HTMLInputElement>('input[name="databases"]:checked')
    return boxes[index]?.dataset.name ?? `Database ${index + 1}`
  }
  const messages = listRefusals(form.problem?.errors ?? [], 'databases', checked)
  return (
    <Fieldset
      legend="Which databases"
      aria-describedby={messages.length ? 'restore-databases-error' : undefined}
    >
      {databases.map((database) => (
        <div className="field checkbox" key={database.databaseId}>
          <input
            type="checkbox"
            id={`database-${database.databaseId}`}
            name="databases"
            value={database.databaseId}
            data-name={database.name}
          />
          <label htmlFor={`database-${database.databaseId}`}>
            {database.name} ({database.tables} {database.tables === 1 ? 'table' : 'tables'}, {database.engine}
            )
          </label>
        </div>
      ))}
      <Refusals id="restore-databases-error" messages={messages} />
    </Fieldset>
  )
}
