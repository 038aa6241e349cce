// `/customers`: the customers staff see, newest last as the API lists them, narrowed by brand when the caller
// sees several brands (the list's only filter: `brandId`).

import {
  CursorTable,
  formatTime,
  Link,
  PageHeader,
  QuerySelect,
  useBrandName,
  useBrands,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Customer = Schemas['Customer']

/** The brand filter: only worth showing to callers who see more than one brand (platform staff). */
function BrandFilter({ brandId }: { brandId: string }) {
  const { brands } = useBrands()
  if (brands.length < 2) return null
  const options = [
    { value: '', label: 'Every brand' },
    ...brands.map((brand) => ({ value: brand.id, label: brand.name })),
  ]
  return (
    <div className="form-inline list-filters">
      <QuerySelect name="brandId" label="Brand" options={options} value={brandId} />
    </div>
  )
}

export function CustomerList() {
  const session = useSession()
  const { query } = useLocation()
  const brandId = query.get('brandId') ?? ''
  const brandName = useBrandName()
  const canCreate = session.can('customer:create')
  return (
    <>
      <PageHeader
        title="Customers"
        subtitle="People and companies you host: each owns sites, databases and subscriptions, and has a team."
        actions={
          canCreate ? (
            <Link className="button customers-create" to="/customers/new">
              Create customer
            </Link>
          ) : null
        }
      />
      <BrandFilter brandId={brandId} />
      <CursorTable<Customer>
        list={api.list('/api/v1/customers', {
          params: { query: { ...(brandId ? { brandId } : {}) } },
        })}
        caption="Customers"
        rowKey={(customer) => customer.id}
        empty={
          brandId
            ? 'This brand has no customers yet.'
            : canCreate
              ? 'No customers yet. Create one to host their sites and invite their team.'
              : 'No customers yet.'
        }
        columns={[
          {
            header: 'Name',
            cell: (customer) => (
              <Link to={`/customers/${encodeURIComponent(customer.id)}`}>{customer.name}</Link>
            ),
          },
          { header: 'E-mail', cell: (customer) => customer.email ?? '—' },
          { header: 'Brand', cell: (customer) => brandName(customer.brandId) },
          { header: 'Created', cell: (customer) => formatTime(customer.createdAt) },
        ]}
      />
    </>
  )
}
