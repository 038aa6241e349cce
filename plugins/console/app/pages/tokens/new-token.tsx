// `/api-tokens/new`: a new API token for the caller: a name, its scopes, optionally one customer, and an expiry
// day (default and longest lifetime from capabilities). The token is shown once.

import { api, unwrap } from '../../api/client.ts'
import { useCapabilities } from '../../capabilities.ts'
import { useCustomerOptions } from '../../components/customer-field.tsx'
import { FormFooter, SelectField, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { formatTime } from '../../components/format.ts'
import { Breadcrumbs, Facts, PageHeader, Section } from '../../components/page.tsx'
import { SecretOnce } from '../../components/secret-once.tsx'
import { Loading } from '../../components/states.tsx'
import { Link } from '../../router.tsx'
import { expiryBounds, expiryOf } from './expiry.ts'
import { ScopeChoices } from './scope-choices.tsx'
import { TokenScopes } from './token-cells.tsx'

/** The installation's token lifetimes, with the documented defaults until capabilities answer. */
function useLifetimes(): { defaultDays: number; maxDays: number; loading: boolean } {
  const capabilities = useCapabilities()
  const lifetime = capabilities.data?.limits.tokenLifetimeDays
  return {
    defaultDays: lifetime?.default ?? 90,
    maxDays: lifetime?.max ?? 365,
    loading: capabilities.isPending,
  }
}

export function NewToken() {
  const { options, loading } = useCustomerOptions()
  const lifetimes = useLifetimes()
  const { defaultDays, maxDays } = lifetimes
  const bounds = expiryBounds(defaultDays, maxDays)
  const form = useApiForm((data) => {
    const customerId = textOf(data, 'customerId')
    const expiresAt = expiryOf(textOf(data, 'expiresAt'), maxDays)
    return unwrap(
      api.POST('/api/v1/api-tokens', {
        body: {
          name: textOf(data, 'name') ?? '',
          scopes: data.getAll('scopes').map(String),
          ...(customerId ? { customerId } : {}),
          ...(expiresAt ? { expiresAt } : {}),
        },
      }),
    )
  })
  const created = form.result
  const customerName = (id: string | null) =>
    id === null ? 'Any of yours' : (options.find((option) => option.value === id)?.label ?? id)
  return (
    <div className="token-new">
      <Breadcrumbs to="/api-tokens" label="API tokens" />
      <PageHeader title="New API token" subtitle="For a script or an integration that uses the API as you." />
      {lifetimes.loading ? (
        <Loading />
      ) : created ? (
        <Section title="Your new token">
          <SecretOnce label="API token" value={created.token} />
          <Facts
            items={[
              ['Name', created.name],
              ['Scopes', <TokenScopes key="scopes" scopes={created.scopes} />],
              ['Customer', customerName(created.customerId)],
              ['Expires', formatTime(created.expiresAt)],
            ]}
          />
          <p className="actions">
            <Link className="button secondary" to="/api-tokens">
              Back to API tokens
            </Link>
          </p>
        </Section>
      ) : (
        <form onSubmit={form.submit} noValidate aria-label="Create API token">
          <TextField
            form={form}
            name="name"
            label="Name"
            hint="What it is for, e.g. “billing sync”."
            autoComplete="off"
            required
          />
          <ScopeChoices form={form} />
          {loading ? (
            <p className="muted">Loading customers…</p>
          ) : (
            <SelectField
              form={form}
              name="customerId"
              label="Customer limit"
              hint="Limit the token to one customer: it sees nothing else."
              options={[{ value: '', label: 'No limit' }, ...options]}
            />
          )}
          <TextField
            form={form}
            name="expiresAt"
            label="Expires on"
            type="date"
            defaultValue={bounds.defaultValue}
            min={bounds.min}
            max={bounds.max}
            hint={`At the end of that day; at most ${maxDays} days from now.`}
          />
          <FormFooter form={form}>Create token</FormFooter>
        </form>
      )}
    </div>
  )
}
