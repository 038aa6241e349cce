// A zone as a BIND zone file (RFC 1035 master file): the SOA and NS records of the installation's name servers at
// the apex, then the zone's records, names relative to `$ORIGIN`, names they point to absolute.

/** What the export writes besides the records: the installation's name servers and hostmaster. */
export interface ZoneFileOptions {
  readonly nameservers: readonly string[]
  readonly hostmaster: string
  readonly defaultTtl: number
}

/** A TXT record's text as quoted strings of at most 255 bytes, `"` and `\` escaped, other bytes as `\DDD`. */
function quoted(text: string): string {
  const bytes = new TextEncoder().encode(text)
  const escaped = (byte: number) =>
    byte === 34 || byte === 92
      ? `\\${String.fromCharCode(byte)}`
      : byte < 127
        ? String.fromCharCode(byte)
        : `\\${byte}`
  const strings: string[] = []
  for (let at = 0; at < bytes.length; at += 255)
    strings.push(`"${[...bytes.subarray(at, at + 255)].map(escaped).join('')}"`)
  return strings.join(' ')
}

/** The zone file of `zone` with `records` (in the order given). */
export function zoneFile(
  zone: { readonly name: string; readonly serial: number },
  records: readonly {
    readonly name: string
    readonly type: string
    readonly content: string
    readonly ttl: number
  }[],
  options: ZoneFileOptions,
): string {
  const [local = '', domain = ''] = options.hostmaster.split('@')
  const mailbox = `${local.replaceAll('.', '\\.')}.${domain}.`
  // refresh 1 h, retry 15 min, expire 14 days, negative answers cached 5 min.
  const soa = `@ IN SOA ${options.nameservers[0]}. ${mailbox} ${zone.serial} 3600 900 1209600 300`
  const data = (type: string, content: string) =>
    type === 'TXT' ? quoted(content) : type === 'CNAME' || type === 'MX' ? `${content}.` : content
  return [
    `; ${zone.name}, serial ${zone.serial}`,
    `$ORIGIN ${zone.name}.`,
    `$TTL ${options.defaultTtl}`,
    soa,
    ...options.nameservers.map((server) => `@ IN NS ${server}.`),
    ...records.map(
      (record) => `${record.name} ${record.ttl} IN ${record.type} ${data(record.type, record.content)}`,
    ),
    '',
  ].join('\n')
}
