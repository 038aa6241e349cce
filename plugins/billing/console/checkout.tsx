// `/subscriptions/checkout`: a team's owner or billing member picks a plan its brand offers and subscribes
// (`POST /checkout`). A member of several teams first chooses the team; that choice is kept in the query string.

import { useQuery } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import {
  Breadcrumbs,
  CursorTable,
  CustomerField,
  FormProblem,
  Link,
  navigate,
  PageHeader,
  Section,
  SubmitButton,
  setQuery,
  touch,
  unwrap,
  useApiForm,
  useCustomerOptions,
  useLocation,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { formatLimit, limitKeys, limitLabels } from './limits.ts'
import { usePlanNames } from './names.ts'

type Plan = Schemas['Plan']

/** One plan's "Subscribe" button: its own form, so a refusal shows beside the plan it concerns. */
function SubscribeButton({ plan, customerId }: { plan: Plan; customerId: string }) {
  const form = useApiForm(
    () => unwrap(api.POST('/api/v1/checkout', { body: { customerId, planId: plan.id } })),
    {
      onSuccess: (subscription) => {
        // Checking out creates a subscription and may change the customer's limits.
        touch('/api/v1/subscriptions', '/api/v1/usage')
        navigate(`/subscriptions/${encodeURIComponent(subscription.id)}`)
      },
    },
  )
  return (
    <form className="checkout-offer" onSubmit={form.submit} noValidate>
      <SubmitButton form={form}>
        Subscribe<span className="visually-hidden"> to {plan.name}</span>
      </SubmitButton>
      <FormProblem form={form} />
    </form>
  )
}

/** Checkout is once per customer: say so when the chosen one already holds a live subscription. */
function CurrentSubscription({ customerId }: { customerId: string }) {
  const planName = usePlanNames()
  const current = useQuery(
    api.query('/api/v1/subscriptions', { params: { query: { customerId, limit: 100 } } }),
  )
  const live = (current.data?.items ?? []).find(
    (subscription) => subscription.status === 'active' || subscription.status === 'past_due',
  )
  if (!live) return null
  return (
    <div className="notice notice-info">
      <p>
        This team already subscribes to{' '}
        <Link to={`/subscriptions/${encodeURIComponent(live.id)}`}>{planName(live.planId)}</Link>. Another
        plan, or a change of plan, goes through your provider.
      </p>
    </div>
  )
}

/** The team to subscribe: a choice only when there are several. */
function TeamChooser() {
  const form = useApiForm(async () => undefined)
  const choose = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as unknown as HTMLSelectElement
    if (target.name === 'customerId') setQuery({ customerId: target.value })
  }
  return (
    <form className="form-inline" onSubmit={form.submit} onChange={choose} noValidate>
      <CustomerField form={form} />
    </form>
  )
}

export function Checkout() {
  const { query } = useLocation()
  const customers = useCustomerOptions()
  const only = customers.options.length === 1 ? customers.options[0] : undefined
  const customerId = query.get('customerId') ?? only?.value ?? ''
  return (
    <>
      <Breadcrumbs to="/subscriptions" label="Subscriptions" here="Subscribe" />
      <PageHeader
        title="Subscribe to a plan"
        subtitle={only ? `For ${only.label}.` : 'Choose the team, then its plan.'}
      />
      {only ? null : <TeamChooser />}
      {customerId ? <CurrentSubscription customerId={customerId} /> : null}
      {customerId ? (
        <Section title="Plans on offer">
          <CursorTable<Plan>
            list={api.list('/api/v1/checkout/plans', { params: { query: { customerId } } })}
            caption="Plans on offer"
            rowKey={(plan) => plan.id}
            empty="No plans are on offer yet. Ask your provider."
            columns={[
              {
                header: 'Plan',
                cell: (plan) => (
                  <>
                    <strong>{plan.name}</strong>
                    {plan.description ? <p className="muted">{plan.description}</p> : null}
                  </>
                ),
              },
              ...limitKeys.map((key) => ({
                header: limitLabels[key],
                cell: (plan: Plan) => formatLimit(plan.limits, key),
              })),
              {
                header: 'Subscribe',
                cell: (plan) => <SubscribeButton plan={plan} customerId={customerId} />,
              },
            ]}
          />
        </Section>
      ) : customers.loading ? null : (
        <p className="empty">Choose the team to see the plans it can subscribe to.</p>
      )}
    </>
  )
}
