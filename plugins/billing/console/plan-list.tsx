// `/plans`: the plans staff offer their customers, with their limits; filtered by status in the query string.

import {
  CursorTable,
  FilterForm,
  Link,
  PageHeader,
  StatusBadge,
  useBrandOptions,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { formatLimit, limitKeys, limitLabels } from './limits.ts'

type Plan = Schemas['Plan']
type PlanStatus = Plan['status']

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'archived', label: 'Archived' },
]

export function PlanList() {
  const session = useSession()
  const { query } = useLocation()
  const status = query.get('status') ?? ''
  const brands = useBrandOptions({ markDefault: true })
  const brandName = (id: string) => brands.find((brand) => brand.value === id)?.label ?? id
  const canManage = session.can('plan:manage')
  return (
    <>
      <PageHeader
        title="Plans"
        subtitle="What customers can subscribe to, and the limits each plan gives them."
        actions={
          canManage ? (
            <Link to="/plans/new" className="button">
              New plan
            </Link>
          ) : null
        }
      />
      <FilterForm filters={[{ name: 'status', label: 'Status', options: statusOptions, value: status }]} />
      <CursorTable<Plan>
        list={api.list('/api/v1/plans', {
          params: { query: { ...(status ? { status: status as PlanStatus } : {}) } },
        })}
        caption="Plans"
        rowKey={(plan) => plan.id}
        empty={
          canManage
            ? 'No plans yet. Create one with “New plan” so customers can subscribe.'
            : 'No plans yet. Staff who manage plans can create them.'
        }
        columns={[
          {
            header: 'Name',
            cell: (plan) => <Link to={`/plans/${encodeURIComponent(plan.id)}`}>{plan.name}</Link>,
          },
          ...limitKeys.map((key) => ({
            header: limitLabels[key],
            cell: (plan: Plan) => formatLimit(plan.limits, key),
          })),
          ...(brands.length > 0 ? [{ header: 'Brand', cell: (plan: Plan) => brandName(plan.brandId) }] : []),
          { header: 'Status', cell: (plan) => <StatusBadge status={plan.status} /> },
        ]}
      />
    </>
  )
}
