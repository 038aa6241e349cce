// A zone as a BIND zone file (RFC 1035 master file): the SOA and NS of the installation's name servers at the
// apex, then the zone's records, their names relative to `$ORIGIN`, the names they point to absolute.

import type { DnsRecord, DnsZone } from './contract.ts'

/** What the export writes besides the records: the installation's name servers and the SOA's mailbox. */
export interface ZoneFileOptions {
  readonly nameservers: readonly string[]
  readonly hostmaster: string
}

/** A TXT record's text as quoted strings of at most 255 bytes: `"` and `\` escaped, bytes past ASCII as `\DDD`. */
function quoted(text: string): string {
  const bytes = [...new TextEncoder().encode(text)]
  const escaped = bytes.map((byte) =>
    byte > 126
      ? `\\${byte}`
      : `${/["\\]/.test(String.fromCharCode(byte)) ? '\\' : ''}${String.fromCharCode(byte)}`,
  )
  const strings: string[] = []
  for (let at = 0; at < escaped.length; at += 255) strings.push(`"${escaped.slice(at, at + 255).join('')}"`)
  return strings.join(' ')
}

/** The zone file of `zone` with its records, the apex's first. */
export function zoneFile(zone: DnsZone, records: readonly DnsRecord[], options: ZoneFileOptions): string {
  const [local = '', domain = ''] = options.hostmaster.split('@')
  const soa = `${options.nameservers[0]}. ${local.replaceAll('.', '\\.')}.${domain}. ${zone.serial}`
  const data = ({ type, content }: DnsRecord) =>
    type === 'TXT' ? quoted(content) : type === 'CNAME' || type === 'MX' ? `${content}.` : content
  const key = (record: DnsRecord) => (record.name === '@' ? '' : record.name)
  const sorted = records.toSorted((a, b) => Number(key(a) > key(b)) - Number(key(a) < key(b)))
  return [
    `; ${zone.name}, serial ${zone.serial}`,
    `$ORIGIN ${zone.name}.`,
    '$TTL 3600',
    // Refreshed hourly, retried after 15 minutes, expired after 14 days; negative answers kept 5 minutes.
    `@ IN SOA ${soa} 3600 900 1209600 300`,
    ...options.nameservers.map((server) => `@ IN NS ${server}.`),
    ...sorted.map((record) => `${record.name} ${record.ttl} IN ${record.type} ${data(record)}`),
    '',
  ].join('\n')
}
