// Customers by name rather than id, wherever a page shows whose something is. The names come from the customer
// options (staff: the first 100 customers they see; members: their teams), so a name the caller cannot read falls
// back to the id: lookups are cosmetic, never a reason for a page to fail.

import { Link } from '../router.tsx'
import { useSession } from '../session.tsx'
import type { Column } from './cursor-table.tsx'
import { useCustomerOptions } from './customer-field.tsx'

/** A function naming a customer id (its name when known, else the id). */
export function useCustomerNames(): (id: string) => string {
  const { options } = useCustomerOptions()
  const names = new Map(options.map((option) => [option.value, option.label]))
  return (id) => names.get(id) ?? id
}

/** A customer by name: a link to its page for staff, its name for members (who have no customer pages). */
export function CustomerName({ id }: { id: string }) {
  const { staff } = useSession()
  const name = useCustomerNames()(id)
  return staff ? <Link to={`/customers/${encodeURIComponent(id)}`}>{name}</Link> : name
}

/** A table's "Customer" column, for staff only: `columns={[…, customerColumn, …]}` of any item with `customerId`. */
export const customerColumn: Column<{ readonly customerId: string }> = {
  header: 'Customer',
  cell: (item) => <CustomerName id={item.customerId} />,
  staff: true,
}
