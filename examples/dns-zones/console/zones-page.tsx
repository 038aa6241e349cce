// `/dns-zones`: the zones the caller sees, each opening its records; a new zone for those who manage them.

import {
  CursorTable,
  CustomerField,
  CustomerName,
  FormFooter,
  Link,
  navigate,
  PageHeader,
  Section,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useSession,
} from '../../../plugins/console/kit.ts'
import { api, type Schemas } from './api.ts'

/** The zones list, and the form that adds one. */
export function ZonesPage() {
  const { can, staff } = useSession()
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/dns-zones', {
          body: { customerId: textOf(data, 'customerId') ?? '', name: textOf(data, 'name') ?? '' },
        }),
      ),
    { onSuccess: (zone) => navigate(`/dns-zones/${zone.id}`) },
  )
  return (
    <>
      <PageHeader
        title="DNS zones"
        subtitle="Domains whose records the panel keeps, each exported as a zone file."
      />
      <CursorTable<Schemas['DnsZone']>
        list={api.list('/api/v1/dns-zones')}
        caption="DNS zones"
        rowKey={(zone) => zone.id}
        empty="No DNS zones yet."
        columns={[
          { header: 'Zone', cell: (zone) => <Link to={`/dns-zones/${zone.id}`}>{zone.name}</Link> },
          ...(staff
            ? [
                {
                  header: 'Customer',
                  cell: (zone: Schemas['DnsZone']) => <CustomerName id={zone.customerId} />,
                },
              ]
            : []),
          { header: 'Serial', cell: (zone) => zone.serial },
        ]}
      />
      {can('dns:manage') ? (
        <Section title="New zone">
          <form onSubmit={form.submit} noValidate>
            <CustomerField form={form} />
            <TextField form={form} name="name" label="Domain" hint="Without the final dot: example.com" />
            <FormFooter form={form}>Add zone</FormFooter>
          </form>
        </Section>
      ) : null}
    </>
  )
}
