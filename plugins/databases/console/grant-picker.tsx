// The grants of a database user: each database of the customer on the user's server, ticked or not, with its
// access. A refusal names a grant by its place in the list sent (`body.grants.2.databaseId`), so the picker maps it
// back to the database it was about and shows it there.

import { useId } from 'react'
import type { ApiForm } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

export type Grant = Schemas['DatabaseGrant']

/** The refusal messages of the grants, by database id (from the list as it was sent), and for the whole list. */
function grantMessages<R>(form: ApiForm<R>, sent: readonly Grant[]) {
  const byDatabase = new Map<string, string[]>()
  const general: string[] = []
  for (const item of form.problem?.errors ?? []) {
    if (item.location === 'body.grants') general.push(item.message)
    const match = /^body\.grants\.(\d+)(\.|$)/.exec(item.location)
    const databaseId = match ? sent[Number(match[1])]?.databaseId : undefined
    if (databaseId) byDatabase.set(databaseId, [...(byDatabase.get(databaseId) ?? []), item.message])
  }
  return { byDatabase, general }
}

export function GrantPicker<R>({
  form,
  databases,
  grants,
  onChange,
  sent,
  legend = 'Grants',
}: {
  form: ApiForm<R>
  legend?: string
  /** The databases that may be granted: the customer's, on the user's server. */
  databases: readonly Schemas['Database'][]
  grants: readonly Grant[]
  onChange: (grants: Grant[]) => void
  /** The grants of the last request, to place its refusals. */
  sent: readonly Grant[]
}) {
  const id = useId()
  form.register('grants')
  sent.forEach((_, index) => {
    form.register(`grants.${index}.databaseId`)
    form.register(`grants.${index}.access`)
  })
  const messages = grantMessages(form, sent)
  const accessOf = (databaseId: string) => grants.find((grant) => grant.databaseId === databaseId)?.access
  const set = (databaseId: string, access: Grant['access'] | null) => {
    const others = grants.filter((grant) => grant.databaseId !== databaseId)
    onChange(access ? [...others, { databaseId, access }] : others)
  }
  return (
    <fieldset className="grant-picker" aria-describedby={messages.general.length ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {databases.length === 0 ? (
        <p className="hint">No database of this customer on this server to grant yet.</p>
      ) : (
        <ul>
          {databases.map((database) => {
            const access = accessOf(database.id)
            const errors = messages.byDatabase.get(database.id) ?? []
            return (
              <li key={database.id} className={errors.length ? 'has-error' : undefined}>
                <input
                  type="checkbox"
                  id={`${id}-${database.id}`}
                  checked={access !== undefined}
                  onChange={(event) => set(database.id, event.target.checked ? 'readwrite' : null)}
                  aria-invalid={errors.length ? true : undefined}
                  aria-describedby={errors.length ? `${id}-${database.id}-error` : undefined}
                />
                <label htmlFor={`${id}-${database.id}`}>
                  <code>{database.name}</code>
                </label>
                <label className="visually-hidden" htmlFor={`${id}-${database.id}-access`}>
                  Access to {database.name}
                </label>
                <select
                  id={`${id}-${database.id}-access`}
                  value={access ?? 'readwrite'}
                  disabled={access === undefined}
                  onChange={(event) => set(database.id, event.target.value as Grant['access'])}
                >
                  <option value="readwrite">Read and write</option>
                  <option value="readonly">Read only</option>
                </select>
                {errors.length ? (
                  <p className="field-error" id={`${id}-${database.id}-error`}>
                    {errors.join(' ')}
                  </p>
                ) : null}
              </li>
            )
          })}
        </ul>
      )}
      {messages.general.length ? (
        <p className="field-error" id={`${id}-error`}>
          {messages.general.join(' ')}
        </p>
      ) : null}
    </fieldset>
  )
}
