// `/dns-zones/:id`: a zone's records, adding and deleting them, and its zone file to download.

import { useQuery } from '@tanstack/react-query'
import {
  ActionError,
  apiUrl,
  Breadcrumbs,
  ConfirmButton,
  CursorTable,
  ErrorNotice,
  FormFooter,
  Loading,
  numberOf,
  PageHeader,
  Section,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useAction,
  useApiForm,
  useSession,
} from '../../../plugins/console/kit.ts'
import { api, type Schemas } from './api.ts'

type DnsRecord = Schemas['DnsRecord']
const types = ['A', 'AAAA', 'CNAME', 'MX', 'TXT'].map((type) => ({ value: type, label: type }))

/** The record the add form asks for. */
const recordOf = (data: FormData) => ({
  ...{ name: textOf(data, 'name') ?? '', content: textOf(data, 'content') ?? '', ttl: numberOf(data, 'ttl') },
  type: (textOf(data, 'type') ?? 'A') as DnsRecord['type'],
})

/** A zone's records, the form that adds one, and its zone file. */
export function ZonePage({ id }: { id: string }) {
  const path = { params: { path: { id } } }
  const manage = useSession().can('dns:manage')
  const zone = useQuery(api.query('/api/v1/dns-zones/{id}', path))
  const records = api.list('/api/v1/dns-zones/{id}/records', path)
  const add = useApiForm(
    (data) => unwrap(api.POST('/api/v1/dns-zones/{id}/records', { ...path, body: recordOf(data) })),
    {
      resetOnSuccess: true,
    },
  )
  const remove = useAction(({ id: recordId }: DnsRecord) =>
    unwrap(api.DELETE('/api/v1/dns-zones/{id}/records/{recordId}', { params: { path: { id, recordId } } })),
  )
  const removal = (record: DnsRecord) => (
    <ConfirmButton
      confirmLabel={`Confirm delete ${record.type} ${record.name}`}
      onConfirm={() => remove.mutate(record)}
    >
      Delete {record.type} {record.name}
    </ConfirmButton>
  )
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
      <ActionError action={remove} />
      <CursorTable
        list={records}
        caption="Records"
        rowKey={(record) => record.id}
        empty="No records yet: the zone file holds only its SOA and NS."
        columns={[
          { header: 'Name', cell: (record) => <code>{record.name}</code> },
          { header: 'Type', cell: (record) => record.type },
          { header: 'Content', cell: (record) => <code>{record.content}</code> },
          { header: 'TTL', cell: (record) => record.ttl },
          ...(manage ? [{ header: 'Actions', cell: removal }] : []),
        ]}
      />
      {manage ? (
        <Section title="Add a record">
          <form onSubmit={add.submit} noValidate>
            <TextField form={add} name="name" label="Name" hint="Relative: www, or @ for the zone itself" />
            <SelectField form={add} name="type" label="Type" options={types} />
            <TextField
              form={add}
              name="content"
              label="Content"
              hint="MX: preference and host (10 mx.example.com)"
            />
            <TextField
              form={add}
              name="ttl"
              label="TTL (seconds)"
              type="number"
              hint="60 to 86400; default 3600"
            />
            <FormFooter form={add}>Add record</FormFooter>
          </form>
        </Section>
      ) : null}
    </>
  )
}
