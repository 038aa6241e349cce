// Changing a customer's name and contact e-mail (`PATCH /customers/{id}`); an emptied e-mail removes it.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../../components/form.tsx'

export function EditCustomer({ customer }: { customer: Schemas['Customer'] }) {
  const queries = useQueryClient()
  const form = useApiForm(
    (data) =>
      unwrap(
        api.PATCH('/api/v1/customers/{id}', {
          params: { path: { id: customer.id } },
          body: { name: textOf(data, 'name') ?? '', email: textOf(data, 'email') ?? null },
        }),
      ),
    {
      onSuccess: (updated) => {
        queries.setQueryData(['customers', customer.id], updated)
        void queries.invalidateQueries({ queryKey: ['customers'] })
        // Members see their customers' names through `/me`.
        void queries.invalidateQueries({ queryKey: ['me'] })
      },
    },
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
      <FormProblem form={form} />
      {form.result && !form.pending && !form.problem ? (
        <p className="notice notice-info" role="status">
          Saved.
        </p>
      ) : null}
      <div>
        <SubmitButton form={form}>Save changes</SubmitButton>
      </div>
    </form>
  )
}
