// What other plugins and clients may import of the DNS zones plugin: its resources as the API shows them, and its
// refusals.

import {
  areaScopes,
  defineProblems,
  enumOf,
  limitReached,
  resourceItem,
  type Static,
  t,
} from '../../core/index.ts'

/** `dns:read` and `dns:manage`, held by owners, admins and developers. */
export const dnsScopes = areaScopes('dns', 'DNS zones and their records', ['owner', 'admin', 'developer'])

/** The record types the plugin keeps. */
export const recordTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT'] as const
/** A record type's name. */
export type RecordType = (typeof recordTypes)[number]

/** A customer's DNS zone as the API shows it. */
export const DnsZone = resourceItem('DnsZone', 'dnsz', {
  customerId: t.String({ description: 'The customer whose zone it is, `cus_…`.' }),
  name: t.String({ description: 'The domain, lower-case, without the final dot: `example.com`.' }),
  serial: t.Integer({ description: 'The SOA serial, `YYYYMMDDnn`: raised by every change of its records.' }),
})
/** A record's type, one of {@link recordTypes}. */
export const RecordType = enumOf(recordTypes, { description: 'The record’s type.' })
/** A record of a zone as the API shows it; its content as the zone file writes it, but for the final dots. */
export const DnsRecord = resourceItem('DnsRecord', 'dnsr', {
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
})
export type DnsZone = Static<typeof DnsZone>
export type DnsRecord = Static<typeof DnsRecord>

/** The plugin's refusals (their codes are stable: clients decide on them). */
export const dnsProblems = defineProblems({
  invalid_zone_name: {
    status: 422,
    detail: 'The zone name is not a domain name.',
    description: '`name`: two labels or more (letters, digits, inner hyphens), without the final dot.',
  },
  dns_zone_taken: {
    status: 409,
    detail: 'This zone, or one above or below it, is kept here already.',
    description:
      'Zone names are unique in the installation, and no zone is inside another (keep its records there).',
  },
  dns_zone_limit_reached: limitReached('dnsZones', 'DNS zones'),
  invalid_record_name: {
    status: 422,
    detail: 'The name is not a name in the zone.',
    description: '`name`: `@`, or labels relative to the zone (host names for A, AAAA and MX; `*` first).',
  },
  invalid_record_content: {
    status: 422,
    detail: 'The content does not suit the record’s type.',
    description: 'A: IPv4; AAAA: IPv6; CNAME: a domain; MX: `0`-`65535` and a host name; TXT: no controls.',
  },
  cname_conflict: {
    status: 409,
    detail: 'A CNAME cannot share its name with other records.',
    description:
      'The name holds a CNAME, or other records (at `@`, the SOA and NS) beside the CNAME asked for.',
  },
  duplicate_record: {
    status: 409,
    detail: 'The zone already has this record.',
    description: 'A record of the same name, type and content exists.',
  },
})

/** The usage metric of zones, which plans may limit (`limits.dnsZones`). */
export const dnsZonesMetric = {
  name: 'dnsZones',
  description: 'DNS zones.',
  quota: { description: 'How many zones a customer may keep.', problem: dnsProblems.dns_zone_limit_reached },
}
