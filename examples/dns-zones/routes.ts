// The plugin's operations: zones (list, read, create, delete), their records (list, read, add, change, delete),
// and a zone's BIND zone file. Every change of a zone's records raises its SOA serial in the same transaction.

import {
  defineFormat,
  fieldProblem,
  itemRows,
  nowIso,
  Problem,
  resourceRoutes,
  type Trx,
  t,
} from '../../core/index.ts'
import { DnsRecord, DnsZone, dnsProblems, dnsScopes, dnsZonesMetric, RecordType } from './contract.ts'
import { checkedRecord, isDomain } from './records.ts'
import { type ZoneFileOptions, zoneFile } from './zone-file.ts'

/** Zones and records as callers' views reach them (those of the customers in the view), and as they are written. */
const zones = itemRows('dns_zones', DnsZone, { customerColumn: 'customerId' })
const records = itemRows('dns_records', DnsRecord, { customerColumn: 'customerId' })
const recordProblems = [
  ...[dnsProblems.invalid_record_name, dnsProblems.invalid_record_content],
  ...[dnsProblems.cname_conflict, dnsProblems.duplicate_record],
]
/** The view that sees every zone: zone names are unique in the installation. */
const everyone = { kind: 'all' } as const

const isZoneName = (name: string) => isDomain(name.toLowerCase())
const ZoneName = defineFormat({ name: 'dns-zone', check: isZoneName, problem: dnsProblems.invalid_zone_name })
const NewZone = t.Object({
  customerId: t.String({ maxLength: 64, description: 'The customer whose zone it is, `cus_…`.' }),
  name: ZoneName({ maxLength: 253, description: 'The domain, without the final dot: `example.com`.' }),
})
const NewRecord = t.Object({
  name: t.String({
    minLength: 1,
    maxLength: 253,
    description: 'Relative to the zone; `@`: the zone itself.',
  }),
  type: RecordType,
  content: t.String({ minLength: 1, maxLength: 2000, description: 'As its type wants (see `DnsRecord`).' }),
  ttl: t.Optional(t.Integer({ minimum: 60, maximum: 86400, description: 'Seconds; default 3600.' })),
})
type NewRecord = typeof NewRecord.static & { ttl: number }

/** The SOA serial after `serial`: the day's first (`YYYYMMDD00`), or one more when that is not more already. */
const nextSerial = (serial: number) =>
  Math.max(serial + 1, Number(nowIso().slice(0, 10).replaceAll('-', '')) * 100)

/** Writes `input` into `zone` (a new record, or `old` changed) when the zone's rules allow it. */
async function saved(trx: Trx, zone: DnsZone, input: NewRecord, old?: DnsRecord) {
  const { name, content } = checkedRecord(zone.name, input)
  const named = records.visible(trx, everyone).where('name', '=', name)
  const others = await named
    .where('zoneId', '=', zone.id)
    .where('id', '!=', old?.id ?? '')
    .execute()
  if (others.some((other) => other.type === input.type && other.content === content))
    throw new Problem(dnsProblems.duplicate_record)
  // A CNAME is alone at its name; at the apex the export writes the SOA and NS.
  const cnames = others.some((other) => other.type === 'CNAME')
  if (input.type === 'CNAME' ? others.length > 0 || name === '@' : cnames)
    throw new Problem(dnsProblems.cname_conflict)
  const fields = { type: input.type, name, content, ttl: input.ttl }
  if (old) return records.update(trx, old, fields)
  return records.insert(trx, { ...fields, zoneId: zone.id, customerId: zone.customerId })
}

/** The plugin's routes; `options` say what the zone file writes of the installation. */
export function dnsRoutes(options: ZoneFileOptions) {
  const zoneRoutes = resourceRoutes({
    item: DnsZone,
    path: '/dns-zones',
    scopes: dnsScopes,
    owner: { customer: 'customerId', counts: dnsZonesMetric },
    table: { rows: zones, children: [{ rows: records, column: 'zoneId' }] },
    list: {},
    read: {
      as: {
        'zone-file': {
          operationId: 'exportDnsZone',
          summary: 'A zone as a BIND zone file',
          description: 'The zone file (RFC 1035).',
          contentType: 'text/plain; charset=utf-8',
          filename: (zone) => `${zone.name}.zone`,
          async render({ db, view, row }) {
            const rows = await records.visible(db, view).where('zoneId', '=', row.id).orderBy('id').execute()
            return zoneFile(row, rows, options)
          },
        },
      },
    },
    create: {
      body: NewZone,
      problems: [dnsProblems.dns_zone_taken],
      async handler({ trx, body }) {
        const name = body.name.toLowerCase()
        // A zone above or below another would answer for the other's names: only one of them is kept here.
        const above = name.split('.').map((_, at, labels) => labels.slice(at).join('.'))
        const near = zones
          .visible(trx, everyone)
          .where((eb) => eb.or([eb('name', 'in', above), eb('name', 'like', `%.${name}`)]))
        if (await near.executeTakeFirst()) throw fieldProblem(dnsProblems.dns_zone_taken, 'body.name')
        return zones.insert(trx, { ...body, name, serial: nextSerial(0) })
      },
    },
    // The zone and its records; a deleted customer's zones go so too, in its deletion job.
    remove: {},
  })
  const recordRoutes = resourceRoutes({
    item: DnsRecord,
    path: '/dns-zones/:id/records',
    params: { id: 'dnsz' },
    key: { recordId: 'dnsr' },
    scopes: dnsScopes,
    parent: (db, view, params) => zones.find(db, view, params.id),
    table: { rows: records, parentColumn: 'zoneId' },
    list: { filters: { name: 'name', type: 'type' } },
    read: {},
    create: {
      body: NewRecord,
      problems: recordProblems,
      handler: ({ trx, parent, body }) => saved(trx, parent, { ...body, ttl: body.ttl ?? 3600 }),
    },
    update: {
      body: t.Partial(t.Omit(NewRecord, ['type'])),
      problems: recordProblems,
      handler: ({ trx, parent, row, body }) => saved(trx, parent, { ...row, ...body }, row),
    },
    remove: {},
    // Every change of a zone's records raises its SOA serial, in the change's transaction.
    afterChange: ({ trx, parent }) => zones.update(trx, parent, { serial: nextSerial(parent.serial) }),
  })
  return [...zoneRoutes, ...recordRoutes]
}
