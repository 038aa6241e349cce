// The jobs list's filters: checked by the API (one job read with them), then kept in the query string.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { useCustomerOptions } from '../../components/customer-field.tsx'
import { FormProblem, SelectField, TextField } from '../../components/form.tsx'
import { useSession } from '../../session.tsx'
import { textsOf, useFilterForm } from './filters.ts'

/** The filters `GET /jobs` takes, by their query names. */
export const jobFilterNames = ['status', 'kind', 'customerId', 'subjectId'] as const
export type JobFilterValues = Partial<Record<(typeof jobFilterNames)[number], string>>

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'queued', label: 'Queued' },
  { value: 'running', label: 'Running' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
  { value: 'cancelled', label: 'Cancelled' },
]

export function JobFilters({ filters }: { filters: JobFilterValues }) {
  const { staff } = useSession()
  const customers = useCustomerOptions()
  const form = useFilterForm(
    jobFilterNames,
    (data) => textsOf(data, jobFilterNames),
    (values) =>
      unwrap(
        api.GET('/api/v1/jobs', {
          params: {
            query: { ...values, status: values.status as Schemas['Job']['status'] | undefined, limit: 1 },
          },
        }),
      ),
  )
  return (
    <form className="form-inline" onSubmit={form.submit} noValidate>
      <SelectField
        form={form}
        name="status"
        label="Status"
        options={statusOptions}
        defaultValue={filters.status}
      />
      <TextField
        form={form}
        name="kind"
        label="Kind"
        defaultValue={filters.kind}
        placeholder="site.provision"
        autoComplete="off"
      />
      {staff ? (
        <SelectField
          form={form}
          name="customerId"
          label="Customer"
          options={[{ value: '', label: 'Every customer' }, ...customers.options]}
          defaultValue={filters.customerId}
        />
      ) : null}
      <TextField
        form={form}
        name="subjectId"
        label="Subject id"
        defaultValue={filters.subjectId}
        placeholder="site_…"
        autoComplete="off"
      />
      <button type="submit" className="button secondary" disabled={form.pending}>
        Filter
      </button>
      <FormProblem form={form} />
    </form>
  )
}
