// A form that creates one thing, declared: its fields as data, the call it makes, what follows; for the common
// create form (a section with text, number and select fields, the customer select, a footer with the refusal).

import { unwrap } from '../api/client.ts'
import { useSession } from '../session.tsx'
import { bodyOf, type CreateField, yesNo } from './create-body.ts'
import { CustomerField } from './customer-field.tsx'
import { CheckboxField, FormFooter, SelectField, TextField, useApiForm } from './form.tsx'
import { Section } from './page.tsx'

export type { CreateField }

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
