// Changing a customer's name and contact e-mail (`PATCH /customers/{id}`); an emptied e-mail removes it.

import { FormFooter, SavedNotice, TextField, textOf, touch, unwrap, useEditForm } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

export function EditCustomer({ customer }: { customer: Schemas['Customer'] }) {
  const form = useEditForm(
    (data) =>
      unwrap(
        api.PATCH('/api/v1/customers/{id}', {
          params: { path: { id: customer.id } },
          body: { name: textOf(data, 'name') ?? '', email: textOf(data, 'email') ?? null },
        }),
      ),
    // Members see their customers' names through `/me`.
    { onSaved: () => touch('/api/v1/me') },
  )
  return (
    <form onSubmit={form.submit} noValidate aria-label="Edit customer">
      <TextField
        form={form}
        name="name"
        label="Name"
        defaultValue={customer.name}
        required
        autoComplete="off"
      />
      <TextField
        form={form}
        name="email"
        label="E-mail"
        type="email"
        defaultValue={customer.email ?? ''}
        hint="Leave empty to remove the contact address."
        autoComplete="off"
      />
      <SavedNotice form={form} />
      <FormFooter form={form}>Save changes</FormFooter>
    </form>
  )
}
