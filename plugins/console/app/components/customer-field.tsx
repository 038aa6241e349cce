// The customer a new resource belongs to: staff choose among the customers they see, a team member among their
// teams (by name, from `/me`). One team needs no choice, but the field is still shown, so the form says whose.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../api/client.ts'
import { useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'
import { type ApiForm, SelectField } from './form.tsx'

/** The customers the caller may choose, as select options. */
export function useCustomerOptions(): { options: { value: string; label: string }[]; loading: boolean } {
  const { me, staff } = useSession()
  const customers = useQuery({
    queryKey: ['customers', 'options'],
    queryFn: () => unwrap(api.GET('/api/v1/customers', { params: { query: { limit: 100 } } })),
    enabled: staff,
  })
  if (!staff)
    return {
      options: me.memberships.map((m) => ({ value: m.customerId, label: m.customerName ?? m.customerId })),
      loading: false,
    }
  return {
    options: (customers.data?.items ?? []).map((customer) => ({ value: customer.id, label: customer.name })),
    loading: customers.isPending,
  }
}

export function CustomerField<R>({ form, name = 'customerId' }: { form: ApiForm<R>; name?: string }) {
  const { options, loading } = useCustomerOptions()
  const { query } = useLocation()
  const preset = query.get('customerId') ?? undefined
  if (loading) return <p className="muted">Loading customers…</p>
  return (
    <SelectField
      form={form}
      name={name}
      label="Customer"
      defaultValue={preset}
      options={[{ value: '', label: 'Choose a customer' }, ...options]}
      required
    />
  )
}
