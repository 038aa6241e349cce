// Changing a customer's name and contact e-mail (`PATCH /customers/{id}`); an emptied e-mail removes it.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { SavedNotice, useEditForm } from '../../components/edit-form.tsx'
import { FormFooter, TextField, textOf } from '../../components/form.tsx'

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
    { cacheKey: ['customers', customer.id], refresh: [['customers'], ['me']] },
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
