// `/customers/new`: a new customer (staff). Platform staff choose its brand; brand staff create customers in their
// own brand, which the API picks when no brand is named (CreateCustomerBody.brandId).

import {
  Breadcrumbs,
  ErrorNotice,
  FormFooter,
  navigate,
  PageHeader,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useBrandName,
  useBrands,
  useSession,
} from '../../console/kit.ts'
import { api } from './api.ts'

export function NewCustomer() {
  const session = useSession()
  const { brands, loading, error } = useBrands()
  const brandName = useBrandName()
  const choosesBrand = session.me.kind === 'platform' && brands.length > 0
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/customers', {
          body: {
            name: textOf(data, 'name') ?? '',
            ...(textOf(data, 'email') ? { email: textOf(data, 'email') } : {}),
            ...(textOf(data, 'brandId') ? { brandId: textOf(data, 'brandId') } : {}),
          },
        }),
      ),
    {
      onSuccess: (customer) => {
        navigate(`/customers/${encodeURIComponent(customer.id)}`)
      },
    },
  )
  const defaultBrand = brands.find((brand) => brand.isDefault)?.id
  return (
    <>
      <Breadcrumbs to="/customers" label="Customers" />
      <PageHeader title="New customer" subtitle="Then add their team from the customer’s page." />
      {error ? <ErrorNotice error={error} /> : null}
      <form onSubmit={form.submit} noValidate aria-label="Create customer">
        <TextField form={form} name="name" label="Name" required autoComplete="off" />
        <TextField
          form={form}
          name="email"
          label="E-mail"
          type="email"
          hint="The customer’s contact address (optional; it does not sign anyone in)."
          autoComplete="off"
        />
        {loading ? (
          <p className="muted">Loading brands…</p>
        ) : choosesBrand ? (
          <SelectField
            form={form}
            name="brandId"
            label="Brand"
            defaultValue={defaultBrand}
            options={brands.map((brand) => ({
              value: brand.id,
              label: brand.isDefault ? `${brand.name} (default)` : brand.name,
            }))}
          />
        ) : session.me.brandId ? (
          <p className="muted">The customer joins your brand, {brandName(session.me.brandId)}.</p>
        ) : null}
        <FormFooter form={form}>Create customer</FormFooter>
      </form>
    </>
  )
}
