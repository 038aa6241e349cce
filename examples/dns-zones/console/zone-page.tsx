// `/dns-zones/:id`: a zone's records, adding and deleting them, and its zone file to download.

import { useQuery } from '@tanstack/react-query'
import {
  apiUrl,
  Breadcrumbs,
  CreateForm,
  CursorTable,
  ErrorNotice,
  Loading,
  PageHeader,
} from '../../../plugins/console/kit.ts'
import { api } from './api.ts'

/** A zone's records, the form that adds one, and its zone file. */
export function ZonePage({ id }: { id: string }) {
  const path = { params: { path: { id } } }
  const zone = useQuery(api.query('/api/v1/dns-zones/{id}', path))
  if (zone.isPending) return <Loading />
  if (zone.isError) return <ErrorNotice error={zone.error} />
  const download = (
    <a className="button secondary" href={apiUrl(`/dns-zones/${id}/zone-file`)} download>
      Download zone file
    </a>
  )
  return (
    <>
      <Breadcrumbs to="/dns-zones" label="DNS zones" />
      <PageHeader title={zone.data.name} subtitle={`Serial ${zone.data.serial}`} actions={download} />
      <CursorTable
        list={api.list('/api/v1/dns-zones/{id}/records', path)}
        caption="Records"
        empty="No records yet: the zone file holds only its SOA and NS."
        columns={[
          { header: 'Name', cell: (record) => <code>{record.name}</code> },
          { header: 'Type', cell: (record) => record.type },
          { header: 'Content', cell: (record) => <code>{record.content}</code> },
          { header: 'TTL', cell: (record) => record.ttl },
        ]}
        remove={{
          scope: 'dns:manage',
          label: (record) => `${record.type} ${record.name}`,
          run: ({ id: recordId }) =>
            api.DELETE('/api/v1/dns-zones/{id}/records/{recordId}', { params: { path: { id, recordId } } }),
        }}
      />
      <CreateForm
        title="Add a record"
        scope="dns:manage"
        fields={[
          { name: 'name', label: 'Name', hint: 'Relative: www, or @ for the zone itself' },
          { name: 'type', label: 'Type', options: ['A', 'AAAA', 'CNAME', 'MX', 'TXT'] },
          { name: 'content', label: 'Content', hint: 'MX: preference and host (10 mx.example.com)' },
          { name: 'ttl', label: 'TTL (seconds)', type: 'number', hint: '60 to 86400; default 3600' },
        ]}
        submit={(body) => api.POST('/api/v1/dns-zones/{id}/records', { ...path, body })}
        submitLabel="Add record"
      />
    </>
  )
}
