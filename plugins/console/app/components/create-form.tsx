// A form that creates one thing, declared: its fields as data, the call it makes, what follows; for the common
// create form (a section with text, number and select fields, the customer select, a footer with the refusal).

import type { ReactNode } from 'react'
import { unwrap } from '../api/client.ts'
import { useSession } from '../session.tsx'
import { CustomerField } from './customer-field.tsx'
import { CheckboxField, FormFooter, SelectField, TextField, textOf, useApiForm } from './form.tsx'
import { Section } from './page.tsx'

/** A field of a {@link CreateForm}: its body field, label and hint, and what kind of input it is. */
export interface CreateField {
  /** The body field it sends, where a refusal of `body.<name>` shows. */
  readonly name: string
  /** Its visible label; the customer select says "Customer". */
  readonly label?: string
  readonly hint?: ReactNode
  /**
   * `number` sends a number, `checkbox` true or false, `yes-no` a select of Default (nothing sent), Yes and No,
   * `customer` is the customer select (staff's customers, a member's teams). Default text.
   */
  readonly type?: 'text' | 'number' | 'checkbox' | 'yes-no' | 'customer'
  /** A select among these values instead of a text input (the first chosen at first; `''`, "Default", sends none). */
  readonly options?: readonly string[]
  /** What the input starts at (a checkbox: checked or not). Default empty, the first option, unchecked. */
  readonly initial?: string | boolean
}

/** The words of a `yes-no` select's values. */
const yesNo: Readonly<Record<string, string>> = { '': 'Default', true: 'Yes', false: 'No' }

/** The body the fields make: text trimmed, empty fields left out (the API then says what is missing). */
function bodyOf(fields: readonly CreateField[], data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    if (field.type === 'checkbox') {
      body[field.name] = data.get(field.name) === 'true'
      continue
    }
    const text = textOf(data, field.name)
    if (text === undefined) continue
    body[field.name] =
      field.type === 'number' ? Number(text) : field.type === 'yes-no' ? text === 'true' : text
  }
  return body
}

/**
 * A section titled `title` with a form of `fields` that sends their body with `submit`, shown only to callers
 * holding `scope`. After a success it calls `onCreated` with the answer, or else clears itself for the next one.
 * The body is typed by `submit`'s call, not by the fields: the API checks it, and the form shows each refusal at
 * its field.
 * @example <CreateForm title="New zone" scope="dns:manage" fields={[{ name: 'customerId', type: 'customer' }, { name: 'name', label: 'Domain' }]} submit={(body) => api.POST('/api/v1/dns-zones', { body })} submitLabel="Add zone" />
 */
export function CreateForm<R>({
  title,
  scope,
  fields,
  submit,
  submitLabel,
  onCreated,
}: {
  title: string
  scope?: string
  fields: readonly CreateField[]
  /** The API call, given the body as its operation wants it (see above). */
  submit: (body: never) => Promise<{ data?: R; error?: unknown; response: Response }>
  submitLabel: string
  onCreated?: (created: NonNullable<R>) => void
}) {
  const { can } = useSession()
  const form = useApiForm(
    (data) => unwrap(submit(bodyOf(fields, data) as never)),
    onCreated ? { onSuccess: onCreated } : { resetOnSuccess: true },
  )
  if (scope && !can(scope)) return null
  return (
    <Section title={title}>
      <form onSubmit={form.submit} noValidate>
        {fields.map((field) =>
          field.type === 'customer' ? (
            <CustomerField key={field.name} form={form} name={field.name} />
          ) : field.options || field.type === 'yes-no' ? (
            <SelectField
              key={field.name}
              form={form}
              name={field.name}
              label={field.label ?? field.name}
              hint={field.hint}
              options={(field.options ?? ['', 'true', 'false']).map((value) => ({
                value,
                label: field.type === 'yes-no' ? (yesNo[value] ?? value) : value || 'Default',
              }))}
              defaultValue={typeof field.initial === 'string' ? field.initial : undefined}
            />
          ) : field.type === 'checkbox' ? (
            <CheckboxField
              key={field.name}
              form={form}
              name={field.name}
              label={field.label ?? field.name}
              hint={field.hint}
              defaultChecked={field.initial === true}
            />
          ) : (
            <TextField
              key={field.name}
              form={form}
              name={field.name}
              label={field.label ?? field.name}
              hint={field.hint}
              type={field.type ?? 'text'}
              defaultValue={typeof field.initial === 'string' ? field.initial : undefined}
            />
          ),
        )}
        <FormFooter form={form}>{submitLabel}</FormFooter>
      </form>
    </Section>
  )
}
