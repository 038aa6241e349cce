// What other plugins and clients may import of the DNS zones plugin: its resources as the API shows them.

import { type Static, t } from '../../core/index.ts'
import { recordTypes } from './records.ts'

export const DnsZone = t.Object(
  {
    id: t.String({ description: 'Identifier, `dnsz_…`.' }),
    customerId: t.String({ description: 'The customer whose zone it is, `cus_…`.' }),
    name: t.String({ description: 'The domain, lower-case, without the final dot: `example.com`.' }),
    serial: t.Integer({
      description: 'The SOA serial, `YYYYMMDDnn`: raised by every change of its records.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'DnsZone' },
)
export const RecordType = t.Union(
  recordTypes.map((type) => t.Literal(type)),
  { description: 'The record’s type.' },
)
export const DnsRecord = t.Object(
  {
    id: t.String({ description: 'Identifier, `dnsr_…`.' }),
    zoneId: t.String({ description: 'Its zone, `dnsz_…`.' }),
    customerId: t.String({ description: 'The zone’s customer, `cus_…`.' }),
    name: t.String({
      description: 'Relative to the zone, lower-case: `www`, `*.shop`; `@` is the zone itself.',
    }),
    type: RecordType,
    content: t.String({
      description:
        'A: IPv4; AAAA: IPv6; CNAME: a domain; MX: `preference domain`; TXT: text. Domains absolute, without the final dot.',
    }),
    ttl: t.Integer({ description: 'Seconds the answer may be cached, 60 to 86400.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'DnsRecord' },
)
export type DnsZone = Static<typeof DnsZone>
export type DnsRecord = Static<typeof DnsRecord>
