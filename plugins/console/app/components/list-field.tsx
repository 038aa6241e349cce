// A list typed as text (allowed hosts: "127.0.0.1, app.example.net"; a certificate's domains, one a line), sent
// as an array. A refusal may name the list (`body.allowedHosts`) or one item (`body.allowedHosts.1`); both show at
// the field, the item by its place and value.

import { useId, useState } from 'react'
import type { ApiForm } from './form.tsx'

/** The items of a list field: split at commas and white space; undefined when empty (the API's default applies). */
export function listOf(data: FormData, name: string): string[] | undefined {
  const value = data.get(name)
  const items = typeof value === 'string' ? itemsOf(value) : []
  return items.length > 0 ? items : undefined
}

function itemsOf(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean)
}

export function ListField<R>({
  form,
  name,
  label,
  hint,
  defaultValue,
  multiline = false,
}: {
  form: ApiForm<R>
  name: string
  label: string
  hint: string
  defaultValue?: readonly string[]
  /** A text area, one item a line, for longer lists. */
  multiline?: boolean
}) {
  const id = useId()
  // What is typed, split as it is sent, to name the item a refusal is about.
  const [typed, setTyped] = useState<string[]>(() => [...(defaultValue ?? [])])
  // Registered ahead, so the form's banner never repeats what this field shows.
  form.register(name)
  for (let index = 0; index < 100; index++) form.register(`${name}.${index}`)
  const messages = (form.problem?.errors ?? []).flatMap((item) => {
    if (item.location === `body.${name}`) return [item.message]
    const match = new RegExp(`^body\\.${name.replace('.', '\\.')}\\.(\\d+)$`).exec(item.location)
    if (!match) return []
    const index = Number(match[1])
    const value = typed[index]
    return [`${value ? `“${value}”` : `Item ${index + 1}`}: ${item.message}`]
  })
  const control = {
    id,
    name,
    defaultValue: defaultValue?.join(multiline ? '\n' : ', '),
    autoComplete: 'off',
    spellCheck: false,
    onChange: (event: { target: { value: string } }) => setTyped(itemsOf(event.target.value)),
    'aria-invalid': messages.length ? true : undefined,
    'aria-describedby': `${id}-hint${messages.length ? ` ${id}-error` : ''}`,
  } as const
  return (
    <div className={`field${messages.length ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {multiline ? <textarea rows={4} {...control} /> : <input type="text" {...control} />}
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {messages.length ? (
        <p className="field-error" id={`${id}-error`}>
          {messages.join(' ')}
        </p>
      ) : null}
    </div>
  )
}
