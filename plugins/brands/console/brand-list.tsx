// Brands (staff): platform staff see and create every brand; brand staff see their own.

import {
  CursorTable,
  FormProblem,
  formatTime,
  Link,
  navigate,
  PageHeader,
  Section,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useSession,
} from '../../console/kit.ts'
import { api } from './api.ts'

function CreateBrand() {
  const form = useApiForm(
    (data) => unwrap(api.POST('/api/v1/brands', { body: { name: textOf(data, 'name') ?? '' } })),
    {
      onSuccess: (brand) => {
        navigate(`/brands/${brand.id}`)
      },
    },
  )
  return (
    <Section title="New brand">
      <form onSubmit={form.submit} noValidate className="form-inline">
        <TextField form={form} name="name" label="Name" required />
        <SubmitButton form={form}>Create brand</SubmitButton>
      </form>
      <FormProblem form={form} />
    </Section>
  )
}

export function BrandList() {
  const session = useSession()
  return (
    <>
      <PageHeader
        title="Brands"
        subtitle="White-label resellers: each has its own staff, customers, plans and look."
      />
      {session.can('brand:create') ? <CreateBrand /> : null}
      <CursorTable
        list={api.list('/api/v1/brands')}
        caption="Brands"
        rowKey={(brand) => brand.id}
        empty="No brands yet."
        columns={[
          {
            header: 'Name',
            cell: (brand) => <Link to={`/brands/${brand.id}`}>{brand.name}</Link>,
          },
          {
            header: 'Colours',
            cell: (brand) => `${brand.theme.primaryColor} / ${brand.theme.accentColor}`,
          },
          { header: 'Host names', cell: (brand) => brand.hostnames.join(', ') || '—' },
          { header: 'Default', cell: (brand) => (brand.isDefault ? 'yes' : 'no') },
          { header: 'Created', cell: (brand) => formatTime(brand.createdAt) },
        ]}
      />
    </>
  )
}
