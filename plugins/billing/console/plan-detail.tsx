// `/plans/:id`: a plan's facts and limits, its change form (for `plan:manage`), and the subscriptions to it.

import { useQuery } from '@tanstack/react-query'
import {
  Breadcrumbs,
  DeleteResource,
  ErrorNotice,
  Facts,
  formatTime,
  Loading,
  navigate,
  PageHeader,
  Section,
  StatusBadge,
  unwrap,
  useBrandOptions,
  useSession,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { formatLimit, limitKeys, limitLabels } from './limits.ts'
import { PlanEditForm } from './plan-edit-form.tsx'
import { SubscriptionTable } from './subscription-table.tsx'

export function PlanDetail({ id }: { id: string }) {
  const session = useSession()
  const brands = useBrandOptions({ markDefault: true })
  const plan = useQuery(api.query('/api/v1/plans/{id}', { params: { path: { id } } }))
  const breadcrumbs = <Breadcrumbs to="/plans" label="Plans" here={plan.data?.name ?? id} />
  if (plan.isPending) return <Loading />
  if (plan.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Plan" />
        <ErrorNotice error={plan.error} />
      </>
    )
  const current = plan.data
  return (
    <>
      {breadcrumbs}
      <PageHeader title={`Plan ${current.name}`} subtitle={current.description ?? undefined} />
      <Section title="Details">
        <Facts
          items={[
            ['Id', <code key="id">{current.id}</code>],
            ['Status', <StatusBadge key="status" status={current.status} />],
            ['Brand', brands.find((brand) => brand.value === current.brandId)?.label ?? current.brandId],
            ...limitKeys.map((key) => [limitLabels[key], formatLimit(current.limits, key)] as const),
            ['PHP functions allowed', current.php?.allowFunctions.join(', ') || 'none beyond the node’s'],
            ['Created', formatTime(current.createdAt)],
            ['Updated', formatTime(current.updatedAt)],
          ]}
        />
      </Section>
      {session.can('plan:manage') ? (
        <Section title="Edit plan">
          <PlanEditForm plan={current} />
        </Section>
      ) : null}
      {session.can('billing:read') ? (
        <Section title="Subscriptions">
          <SubscriptionTable
            filters={{ planId: current.id }}
            empty="No customer subscribes to this plan yet."
          />
        </Section>
      ) : null}
      {session.can('plan:manage') ? (
        <Section title="Delete plan">
          <DeleteResource
            label="Delete plan"
            run={() => unwrap(api.DELETE('/api/v1/plans/{id}', { params: { path: { id } } }))}
            onDeleted={() => navigate('/plans')}
          >
            Only a plan no subscription holds can be deleted (cancelled ones hold it until the customer’s
            resources are removed). Archive it to stop new subscriptions meanwhile.
          </DeleteResource>
        </Section>
      ) : null}
    </>
  )
}
