// The plugin's ten operations: zones (list, read, create, delete), their records (list, read, add, change,
// delete), and a zone's BIND zone file. Every change of a zone's records raises its SOA serial in its transaction.

import {
  type Db,
  defineFormat,
  defineRoute,
  fieldProblem,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  Reply,
  resourceRoutes,
  type Trx,
  t,
  unchanged,
  visibleTable,
} from '../../core/index.ts'
import { customerDirectory } from '../../plugins/customers/contract.ts'
import { DnsRecord, DnsZone, RecordType } from './contract.ts'
import { dnsProblems } from './problems.ts'
import { checkedRecord, isZoneName } from './records.ts'
import { type ZoneFileOptions, zoneFile } from './zone-file.ts'

const dnsTables = (db: Db) => db.withTables<{ dns_zones: DnsZone; dns_records: DnsRecord }>()
/** Zones and records as callers' views reach them: those of the customers in the view. */
const zones = visibleTable(dnsTables, 'dns_zones', { customerColumn: 'customerId' })
const records = visibleTable(dnsTables, 'dns_records', { customerColumn: 'customerId' })

const ZoneName = defineFormat({
  name: 'dns-zone-name',
  check: (name) => isZoneName(name.toLowerCase()),
  problem: dnsProblems.invalid_zone_name,
})
const NewRecord = t.Object({
  name: t.String({
    minLength: 1,
    maxLength: 253,
    description: 'Relative to the zone; `@` for the zone itself.',
  }),
  type: RecordType,
  content: t.String({ minLength: 1, maxLength: 2000, description: 'As the type wants (see `DnsRecord`).' }),
  ttl: t.Optional(t.Integer({ minimum: 60, maximum: 86400, description: 'Seconds; default 3600.' })),
})
const recordProblems = [
  ...[dnsProblems.invalid_record_name, dnsProblems.invalid_record_content],
  ...[dnsProblems.cname_conflict, dnsProblems.duplicate_record],
]
const scopes = { read: 'dns:read', manage: 'dns:manage' }

/** The next SOA serial: the day's first (`YYYYMMDD00`), or one more than `serial` when that is later. */
const serialAfter = (serial: number) =>
  Math.max(serial + 1, Number(nowIso().slice(0, 10).replaceAll('-', '')) * 100)

/** Whether `name`, or a zone above or below it of another customer, is kept here already. */
async function zoneTaken(trx: Trx, name: string, customerId: string): Promise<boolean> {
  const above = name.split('.').map((_, at, labels) => labels.slice(at).join('.'))
  const near = await dnsTables(trx)
    .selectFrom('dns_zones')
    .select(['name', 'customerId'])
    .where((eb) => eb.or([eb('name', 'in', above), eb('name', 'like', `%.${name}`)]))
    .execute()
  return near.some((zone) => zone.name === name || zone.customerId !== customerId)
}

/** Writes `record` (new, or `old` changed) into `zone` once the zone's rules allow it, and raises its serial. */
async function saved(
  trx: Trx,
  zone: DnsZone,
  record: Omit<DnsRecord, 'id' | 'createdAt' | 'updatedAt'>,
  old?: DnsRecord,
) {
  const { name, content } = checkedRecord(zone.name, record, {
    name: dnsProblems.invalid_record_name,
    content: dnsProblems.invalid_record_content,
  })
  if (old && old.name === name && old.content === content && old.ttl === record.ttl) return unchanged(old)
  const others = await dnsTables(trx)
    .selectFrom('dns_records')
    .select(['type', 'content'])
    .where('zoneId', '=', zone.id)
    .where('name', '=', name)
    .where('id', '!=', old?.id ?? '')
    .execute()
  if (others.some((other) => other.type === record.type && other.content === content))
    throw new Problem(dnsProblems.duplicate_record)
  const cname = record.type === 'CNAME'
  if (cname ? others.length > 0 || name === '@' : others.some((other) => other.type === 'CNAME'))
    throw new Problem(dnsProblems.cname_conflict)
  const at = nowIso()
  const row = { ...(old ?? { id: newId('dnsr'), createdAt: at }), ...record, name, content, updatedAt: at }
  if (old) await dnsTables(trx).updateTable('dns_records').set(row).where('id', '=', old.id).execute()
  else await dnsTables(trx).insertInto('dns_records').values(row).execute()
  await dnsTables(trx)
    .updateTable('dns_zones')
    .set({ serial: serialAfter(zone.serial), updatedAt: at })
    .where('id', '=', zone.id)
    .execute()
  return row
}

/** The plugin's routes. */
export function dnsRoutes(context: PluginContext, zoneFileOptions: ZoneFileOptions) {
  const customers = context.use(customerDirectory)
  const zoneRoutes = resourceRoutes({
    item: DnsZone,
    name: 'dns_zone',
    path: '/dns-zones',
    key: { id: 'dnsz' },
    scopes,
    table: { rows: zones },
    list: {
      query: t.Object({
        customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s zones.' })),
      }),
      filters: { customerId: 'customerId' },
    },
    read: {},
    create: {
      body: t.Object({
        customerId: t.String({
          minLength: 1,
          maxLength: 64,
          description: 'The customer whose zone it is, `cus_…`.',
        }),
        name: ZoneName({ maxLength: 253, description: 'The domain, without the final dot: `example.com`.' }),
      }),
      problems: [
        ...[kernelProblems.unknown_customer, kernelProblems.customer_suspended],
        ...[dnsProblems.dns_zone_taken, dnsProblems.dns_zone_limit_reached],
      ],
      async handler({ trx, view, body }) {
        const customer = await customers.find(trx, view, body.customerId)
        if (!customer) throw fieldProblem(kernelProblems.unknown_customer, 'body.customerId')
        const name = body.name.toLowerCase()
        if (await zoneTaken(trx, name, customer.id))
          throw fieldProblem(dnsProblems.dns_zone_taken, 'body.name')
        await context.quotas.reserve(trx, { customerId: customer.id, amounts: { dnsZones: 1 } })
        await context.usage.adjust(trx, customer.id, 'dnsZones', 1)
        const at = nowIso()
        const zone = {
          id: newId('dnsz'),
          customerId: customer.id,
          name,
          serial: serialAfter(0),
          createdAt: at,
          updatedAt: at,
        }
        await dnsTables(trx).insertInto('dns_zones').values(zone).execute()
        return zone
      },
    },
    async remove({ trx, row }) {
      await dnsTables(trx).deleteFrom('dns_records').where('zoneId', '=', row.id).execute()
      await dnsTables(trx).deleteFrom('dns_zones').where('id', '=', row.id).execute()
      await context.usage.adjust(trx, row.customerId, 'dnsZones', -1)
      return row
    },
  })
  const recordRoutes = resourceRoutes({
    item: DnsRecord,
    name: 'dns_record',
    path: '/dns-zones/:id/records',
    params: { id: 'dnsz' },
    key: { recordId: 'dnsr' },
    scopes,
    parent: (db, view, params) => zones.find(db, view, params.id),
    table: { rows: records, parentColumn: 'zoneId' },
    list: {
      query: t.Object({
        name: t.Optional(t.String({ maxLength: 253, description: 'Only records of this name.' })),
        type: t.Optional(RecordType),
      }),
      filters: { name: 'name', type: 'type' },
    },
    read: {},
    create: {
      body: NewRecord,
      problems: recordProblems,
      handler: ({ trx, parent: zone, body }) =>
        saved(trx, zone, { ...body, zoneId: zone.id, customerId: zone.customerId, ttl: body.ttl ?? 3600 }),
    },
    update: {
      body: t.Partial(t.Omit(NewRecord, ['type'])),
      problems: recordProblems,
      handler: ({ trx, parent: zone, row, body }) => saved(trx, zone, { ...row, ...body }, row),
    },
    async remove({ trx, parent: zone, row }) {
      await dnsTables(trx).deleteFrom('dns_records').where('id', '=', row.id).execute()
      await dnsTables(trx)
        .updateTable('dns_zones')
        .set({ serial: serialAfter(zone.serial), updatedAt: nowIso() })
        .where('id', '=', zone.id)
        .execute()
      return row
    },
  })
  const exported = defineRoute({
    method: 'GET',
    path: '/dns-zones/:id/zone-file',
    operationId: 'exportDnsZone',
    summary: 'A zone as a BIND zone file',
    scope: scopes.read,
    params: { id: 'dnsz' },
    responses: {
      200: {
        description: 'The zone file (RFC 1035), with its SOA and NS.',
        contentType: 'text/plain; charset=utf-8',
      },
    },
    async handler({ db, view, params }) {
      const zone = await zones.find(db, view, params.id)
      const rows = await records.visible(db, view).where('zoneId', '=', zone.id).orderBy('id').execute()
      // By name (the apex first), then as they were added: the same order on every engine.
      const key = (record: DnsRecord) => (record.name === '@' ? '' : record.name)
      const sorted = rows.toSorted((a, b) => Number(key(a) > key(b)) - Number(key(a) < key(b)))
      const disposition = `attachment; filename="${zone.name}.zone"`
      return new Reply(200, zoneFile(zone, sorted, zoneFileOptions), { 'content-disposition': disposition })
    },
  })
  return [...zoneRoutes, ...recordRoutes, exported]
}
