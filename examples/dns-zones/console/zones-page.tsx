// `/dns-zones`: the zones the caller sees, each opening its records; a new zone for those who manage them.

import {
  CreateForm,
  CursorTable,
  customerColumn,
  Link,
  navigate,
  PageHeader,
} from '../../../plugins/console/kit.ts'
import { api } from './api.ts'

/** The zones list, and the form that adds one. */
export function ZonesPage() {
  return (
    <>
      <PageHeader
        title="DNS zones"
        subtitle="Domains whose records the panel keeps, each exported as a zone file."
      />
      <CursorTable
        list={api.list('/api/v1/dns-zones')}
        caption="DNS zones"
        empty="No DNS zones yet."
        columns={[
          { header: 'Zone', cell: (zone) => <Link to={`/dns-zones/${zone.id}`}>{zone.name}</Link> },
          customerColumn,
          { header: 'Serial', cell: (zone) => zone.serial },
        ]}
      />
      <CreateForm
        title="New zone"
        scope="dns:manage"
        fields={[
          { name: 'customerId', type: 'customer' },
          { name: 'name', label: 'Domain', hint: 'Without the final dot: example.com' },
        ]}
        submit={(body) => api.POST('/api/v1/dns-zones', { body })}
        submitLabel="Add zone"
        onCreated={(zone) => navigate(`/dns-zones/${zone.id}`)}
      />
    </>
  )
}
