// The customer a new resource belongs to: staff choose among the customers they see, a team member among their
// teams (by name, from `/me`). One team needs no choice, but the field is still shown, so the form says whose.

import { useQuery } from '@tanstack/react-query'
import { type ChangeEvent, useState } from 'react'
import { api } from '../api/client.ts'
import { useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'
import { type ApiForm, SelectField } from './form.tsx'

/** The customers the caller may choose, as select options. */
export function useCustomerOptions(): { options: { value: string; label: string }[]; loading: boolean } {
  const { me, staff } = useSession()
  // Every customer staff see, page after page (a select of more than a thousand wants a search instead).
  const customers = useQuery({ ...api.all('/api/v1/customers'), enabled: staff })
  if (!staff)
    return {
      options: me.memberships.map((m) => ({ value: m.customerId, label: m.customerName ?? m.customerId })),
      loading: false,
    }
  return {
    options: (customers.data ?? []).map((customer) => ({ value: customer.id, label: customer.name })),
    loading: customers.isPending,
  }
}

/** The customer a create form is for, kept as state because the form's other fields follow it. */
export interface ChosenCustomer {
  readonly customerId: string
  readonly choose: (customerId: string) => void
  readonly options: readonly { value: string; label: string }[]
  readonly loading: boolean
}

/**
 * A chosen customer for forms whose other choices depend on it (its databases, sites, servers). Starts at
 * `?customerId=`, or at the only customer when the caller has one.
 */
export function useChosenCustomer(): ChosenCustomer {
  const { query } = useLocation()
  const { options, loading } = useCustomerOptions()
  const [chosen, choose] = useState<string | null>(query.get('customerId'))
  const only = options.length === 1 ? (options[0]?.value ?? '') : ''
  return { customerId: chosen ?? only, choose, options, loading }
}

/**
 * The "Customer" select. Alone it starts at `?customerId=`; given `chosen` (from {@link useChosenCustomer}) it
 * shows and sets that choice, so the fields that depend on it follow.
 */
export function CustomerField<R>({
  form,
  name = 'customerId',
  chosen,
}: {
  form: ApiForm<R>
  name?: string
  chosen?: ChosenCustomer
}) {
  const own = useCustomerOptions()
  const { query } = useLocation()
  const { options, loading } = chosen ?? own
  if (loading) return <p className="muted">Loading customers…</p>
  const bound = chosen
    ? {
        value: chosen.customerId,
        onChange: (event: ChangeEvent<HTMLSelectElement>) => chosen.choose(event.target.value),
      }
    : { defaultValue: query.get('customerId') ?? (options.length === 1 ? options[0]?.value : undefined) }
  return (
    <SelectField
      form={form}
      name={name}
      label="Customer"
      {...bound}
      options={[{ value: '', label: 'Choose a customer' }, ...options]}
      required
    />
  )
}
