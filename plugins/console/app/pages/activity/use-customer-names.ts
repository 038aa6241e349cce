// A customer's name by id, for the activity tables (staff: the first 100 customers they see; members: their teams).

import { useCustomerOptions } from '../../components/customer-field.tsx'

export function useCustomerNames(): (id: string) => string {
  const { options } = useCustomerOptions()
  const names = new Map(options.map((option) => [option.value, option.label]))
  return (id) => names.get(id) ?? id
}
