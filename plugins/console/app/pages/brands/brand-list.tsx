// Brands (staff): platform staff see and create every brand; brand staff see their own.

import { useQueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { FormProblem, SubmitButton, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { formatTime } from '../../components/format.ts'
import { PageHeader, Section } from '../../components/page.tsx'
import { Link, navigate } from '../../router.tsx'
import { useSession } from '../../session.tsx'

function CreateBrand() {
  const queries = useQueryClient()
  const form = useApiForm(
    (data) => unwrap(api.POST('/api/v1/brands', { body: { name: textOf(data, 'name') ?? '' } })),
    {
      onSuccess: (brand) => {
        void queries.invalidateQueries({ queryKey: ['brands'] })
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
        queryKey={['brands']}
        caption="Brands"
        load={(cursor) => unwrap(api.GET('/api/v1/brands', { params: { query: { cursor } } }))}
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
