// Customers in this area's pages: the controlled customer choice that the create forms' other fields depend on
// (databases, servers and sites of that customer), the customer filter of the lists, and a customer's name.

import { useState } from 'react'
import { useCustomerOptions } from '../../components/customer-field.tsx'
import { type ApiForm, SelectField } from '../../components/form.tsx'
import { Link, setQuery, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'

/**
 * The customer a create form is for, as state the form's other fields follow. Starts at `?customerId=`, or at the
 * only customer when the caller has one.
 */
export function useChosenCustomer(): {
  readonly customerId: string
  readonly choose: (customerId: string) => void
  readonly options: readonly { value: string; label: string }[]
  readonly loading: boolean
} {
  const { query } = useLocation()
  const { options, loading } = useCustomerOptions()
  const [chosen, choose] = useState<string | null>(query.get('customerId'))
  const only = options.length === 1 ? (options[0]?.value ?? '') : ''
  return { customerId: chosen ?? only, choose, options, loading }
}

/** The "Customer" select of a create form, bound to {@link useChosenCustomer}. */
export function CustomerSelect<R>({
  form,
  chosen,
}: {
  form: ApiForm<R>
  chosen: ReturnType<typeof useChosenCustomer>
}) {
  if (chosen.loading) return <p className="muted">Loading customers…</p>
  return (
    <SelectField
      form={form}
      name="customerId"
      label="Customer"
      value={chosen.customerId}
      onChange={(event) => chosen.choose(event.target.value)}
      options={[{ value: '', label: 'Choose a customer' }, ...chosen.options]}
    />
  )
}

/** The customer filter of a list, in the URL (`?customerId=`): for staff, and members of several teams. */
export function CustomerFilter() {
  const { options } = useCustomerOptions()
  const { query } = useLocation()
  if (options.length < 2) return null
  return (
    <div className="form-inline list-filters">
      <div className="field">
        <label htmlFor="customer-filter">Customer</label>
        <select
          id="customer-filter"
          value={query.get('customerId') ?? ''}
          onChange={(event) => setQuery({ customerId: event.target.value || null })}
        >
          <option value="">All customers</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  )
}

/** A customer by name: a link to it for staff, its name for members. */
export function CustomerName({ id }: { id: string }) {
  const { staff } = useSession()
  const { options } = useCustomerOptions()
  const name = options.find((option) => option.value === id)?.label ?? id
  return staff ? <Link to={`/customers/${encodeURIComponent(id)}`}>{name}</Link> : name
}
