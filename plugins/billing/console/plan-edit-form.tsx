// Changing a plan: name, description, limits (an emptied field removes that limit) and status (archive or reopen).

import {
  FormProblem,
  SavedNotice,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
  textOf,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { LimitFields } from './limit-fields.tsx'
import { limitsForUpdate, phpForUpdate } from './limits.ts'

const statusOptions = [
  { value: 'active', label: 'Active: takes new subscriptions' },
  { value: 'archived', label: 'Archived: keeps its subscriptions, takes no new ones' },
]

export function PlanEditForm({ plan }: { plan: Schemas['Plan'] }) {
  const form = useEditForm((data) =>
    unwrap(
      api.PATCH('/api/v1/plans/{id}', {
        params: { path: { id: plan.id } },
        body: {
          name: textOf(data, 'name') ?? '',
          description: textOf(data, 'description') ?? null,
          limits: limitsForUpdate(data),
          php: phpForUpdate(data),
          status: String(data.get('status')) as Schemas['Plan']['status'],
        },
      }),
    ),
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <TextField form={form} name="name" label="Name" defaultValue={plan.name} required autoComplete="off" />
      <TextAreaField
        form={form}
        name="description"
        label="Description"
        defaultValue={plan.description ?? ''}
      />
      <LimitFields form={form} limits={plan.limits} php={plan.php} />
      <SelectField
        form={form}
        name="status"
        label="Status"
        options={statusOptions}
        defaultValue={plan.status}
      />
      <p className="hint">
        New limits bind every live subscription from now on; what is already beyond them stays.
      </p>
      <FormProblem form={form} />
      <SavedNotice form={form} />
      <SubmitButton form={form}>Save plan</SubmitButton>
    </form>
  )
}
