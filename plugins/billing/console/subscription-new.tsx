// `/subscriptions/new`: staff (or a billing system's person) start a subscription for a customer directly
// (`POST /subscriptions`): active at once, and it lifts a billing suspension.

import { type FormEvent, useState } from 'react'
import {
  type ApiForm,
  Breadcrumbs,
  CustomerField,
  FormProblem,
  navigate,
  PageHeader,
  Section,
  SelectField,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useLocation,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { useOfferedPlans } from './use-offered-plans.ts'

/** The plans of the chosen customer's brand; before a customer is chosen, none. */
function PlanChoice<R>({ form, customerId }: { form: ApiForm<R>; customerId: string }) {
  const offered = useOfferedPlans(customerId)
  const options = customerId
    ? offered.isPending
      ? [{ value: '', label: 'Loading plans…' }]
      : [
          { value: '', label: 'Choose a plan' },
          ...(offered.data?.items ?? []).map((plan) => ({ value: plan.id, label: plan.name })),
        ]
    : [{ value: '', label: 'Choose a customer first' }]
  return (
    <SelectField
      form={form}
      name="planId"
      label="Plan"
      options={options}
      required
      hint={
        offered.isError
          ? 'The customer’s plans could not be read.'
          : 'The active plans of the customer’s brand.'
      }
    />
  )
}

export function SubscriptionNew() {
  const { query } = useLocation()
  const [customerId, setCustomerId] = useState(query.get('customerId') ?? '')
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/subscriptions', {
          body: {
            customerId: String(data.get('customerId') ?? ''),
            planId: String(data.get('planId') ?? ''),
            externalId: textOf(data, 'externalId'),
          },
        }),
      ),
    {
      onSuccess: (subscription) => {
        navigate(`/subscriptions/${encodeURIComponent(subscription.id)}`)
      },
    },
  )
  // The plan list follows the customer chosen in the form.
  const follow = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLSelectElement
    if (target.name === 'customerId') setCustomerId(target.value)
  }
  return (
    <>
      <Breadcrumbs to="/subscriptions" label="Subscriptions" here="New subscription" />
      <PageHeader
        title="New subscription"
        subtitle="Subscribe a customer to a plan of its brand. It is active at once; no payment is taken."
      />
      <Section title="Subscription">
        <form onSubmit={form.submit} onChange={follow} noValidate>
          <CustomerField form={form} />
          <PlanChoice form={form} customerId={customerId} />
          <TextField
            form={form}
            name="externalId"
            label="External id"
            hint="Optional: your billing system’s id for it (a WHMCS service id, a Stripe subscription id)."
            autoComplete="off"
          />
          <FormProblem form={form} />
          <SubmitButton form={form}>Create subscription</SubmitButton>
        </form>
      </Section>
    </>
  )
}
