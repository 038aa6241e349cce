// What the provider's staff do to a subscription: move it to another plan, mark its payment standing, record the
// billing system's id, suspend it with a reason and lift the suspension. The API keeps these from customers.

import type { ReactNode } from 'react'
import {
  type ApiForm,
  FormProblem,
  SelectField,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { useOfferedPlans } from './use-offered-plans.ts'

type Subscription = Schemas['Subscription']

/** One action's form: its fields or words, its button, and its refusal. */
function ActionForm({
  form,
  submit,
  children,
}: {
  form: ApiForm<unknown>
  submit: ReactNode
  children: ReactNode
}) {
  return (
    <form className="form-inline" onSubmit={form.submit} noValidate>
      {children}
      <SubmitButton form={form}>{submit}</SubmitButton>
      <FormProblem form={form} />
    </form>
  )
}

function ChangePlanForm({ subscription }: { subscription: Subscription }) {
  const offered = useOfferedPlans(subscription.customerId)
  const form = useEditForm((data) =>
    unwrap(
      api.PATCH('/api/v1/subscriptions/{id}', {
        params: { path: { id: subscription.id } },
        body: { planId: String(data.get('planId') ?? '') },
      }),
    ),
  )
  if (offered.isPending) return <p className="muted">Loading the offered plans…</p>
  const plans = offered.data?.items ?? []
  const options = plans.some((plan) => plan.id === subscription.planId)
    ? plans.map((plan) => ({ value: plan.id, label: plan.name }))
    : [
        { value: subscription.planId, label: `${subscription.planId} (current, not offered)` },
        ...plans.map((plan) => ({ value: plan.id, label: plan.name })),
      ]
  return (
    <ActionForm form={form} submit="Change plan">
      <SelectField
        form={form}
        name="planId"
        label="Plan"
        options={options}
        defaultValue={subscription.planId}
        hint={
          offered.isError
            ? 'The offered plans could not be read.'
            : 'The active plans of the customer’s brand.'
        }
      />
    </ActionForm>
  )
}

function StandingForm({ subscription }: { subscription: Subscription }) {
  const next = subscription.status === 'active' ? 'past_due' : 'active'
  const form = useEditForm(() =>
    unwrap(
      api.PATCH('/api/v1/subscriptions/{id}', {
        params: { path: { id: subscription.id } },
        body: { status: next },
      }),
    ),
  )
  return (
    <ActionForm form={form} submit={next === 'past_due' ? 'Mark as past due' : 'Mark as paid up'}>
      <p className="muted">
        {next === 'past_due'
          ? 'Past due keeps everything running; suspend to stop the customer’s sites.'
          : 'The subscription is past due.'}
      </p>
    </ActionForm>
  )
}

function ExternalIdForm({ subscription }: { subscription: Subscription }) {
  const form = useEditForm((data) =>
    unwrap(
      api.PATCH('/api/v1/subscriptions/{id}', {
        params: { path: { id: subscription.id } },
        body: { externalId: textOf(data, 'externalId') ?? null },
      }),
    ),
  )
  return (
    <ActionForm form={form} submit="Save external id">
      <TextField
        form={form}
        name="externalId"
        label="External id"
        defaultValue={subscription.externalId ?? ''}
        hint="Your billing system’s id for it; empty removes it."
        autoComplete="off"
      />
    </ActionForm>
  )
}

function SuspendForm({ subscription }: { subscription: Subscription }) {
  const form = useEditForm((data) =>
    unwrap(
      api.POST('/api/v1/subscriptions/{id}/suspend', {
        params: { path: { id: subscription.id } },
        body: { reason: textOf(data, 'reason') ?? '' },
      }),
    ),
  )
  return (
    <ActionForm form={form} submit="Suspend subscription">
      <TextField
        form={form}
        name="reason"
        label="Reason"
        required
        hint="Shown on the subscription and in the audit log (“invoice 1042 unpaid”). Unless the customer holds another live subscription, its sites are suspended."
        autoComplete="off"
      />
    </ActionForm>
  )
}

function UnsuspendForm({ subscription }: { subscription: Subscription }) {
  const form = useEditForm(() =>
    unwrap(api.POST('/api/v1/subscriptions/{id}/unsuspend', { params: { path: { id: subscription.id } } })),
  )
  return (
    <ActionForm form={form} submit="Unsuspend subscription">
      <p className="muted">The customer’s sites come back unless staff suspended them on their own.</p>
    </ActionForm>
  )
}

/** One action under its own heading (the section's h2 is "Manage"). */
function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="billing-group">
      <h3>{title}</h3>
      {children}
    </div>
  )
}

/** The staff forms that fit the subscription's state (a cancelled one takes none). */
export function SubscriptionStaffActions({ subscription }: { subscription: Subscription }) {
  if (subscription.status === 'cancelled') return null
  const live = subscription.status === 'active' || subscription.status === 'past_due'
  return (
    <div className="billing-actions">
      <Group title="Plan">
        <ChangePlanForm subscription={subscription} />
      </Group>
      {live ? (
        <Group title="Payment standing">
          <StandingForm subscription={subscription} />
        </Group>
      ) : null}
      <Group title="External id">
        <ExternalIdForm subscription={subscription} />
      </Group>
      <Group title="Suspension">
        {live ? <SuspendForm subscription={subscription} /> : null}
        {subscription.status === 'suspended' ? <UnsuspendForm subscription={subscription} /> : null}
      </Group>
    </div>
  )
}
