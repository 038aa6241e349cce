// DNS zones of customers, with their records and a BIND zone-file export: a third-party plugin written only against
// the public contracts (the kernel's, the customers plugin's and the console's). See README.md.

import { definePlugin, resourceEvents, tablesMigration } from '../../core/index.ts'
import { addConsolePages } from '../../plugins/console/contract.ts'
import { DnsRecord, DnsZone, dnsProblems, dnsScopes, dnsZonesMetric } from './contract.ts'
import { isDomain } from './records.ts'
import { dnsRoutes } from './routes.ts'

/** Options of {@link dnsZonesPlugin}: what each exported zone says of the installation's name servers. */
export interface DnsZonesOptions {
  /** The name servers written as the zones' NS (the first is the SOA's). Default `ns1.example.net`, `ns2.…`. */
  readonly nameservers?: readonly string[]
  /** The SOA's mailbox of the zones' keeper. Default `hostmaster@example.net`. */
  readonly hostmaster?: string
}

/** DNS zones of customers: `dns:read` and `dns:manage`, held by owners, admins and developers. */
export const dnsZonesPlugin = (options: DnsZonesOptions = {}) => {
  const nameservers = options.nameservers ?? ['ns1.example.net', 'ns2.example.net']
  const hostmaster = options.hostmaster ?? 'hostmaster@example.net'
  if (nameservers.length === 0 || !nameservers.every(isDomain) || !/^[^@\s]+@[^@\s]+$/.test(hostmaster))
    throw new Error('dnsZonesPlugin: nameservers must be domain names, and hostmaster an e-mail address')
  return definePlugin({
    name: 'dns-zones',
    version: '1.0.0',
    description: 'DNS zones of customers, exported as BIND zone files.',
    requires: ['customers'],
    enhances: ['console'],
    scopes: dnsScopes.declared,
    events: [
      ...resourceEvents('dns_zone', DnsZone, 'A DNS zone', ['created', 'deleted']),
      ...resourceEvents('dns_record', DnsRecord, 'A DNS record'),
    ],
    problems: dnsProblems,
    usage: [dnsZonesMetric],
    // The tables' columns are the items' fields; names are unique, records read by zone and name.
    migrations: [
      tablesMigration('0001_dns', {
        dns_zones: { item: DnsZone, unique: [['name']] },
        dns_records: { item: DnsRecord, indexes: [['zoneId', 'name']] },
      }),
    ],
    setup(context) {
      addConsolePages(context, import.meta.dir)
    },
    routes: () => dnsRoutes({ nameservers, hostmaster }),
    capabilities: () => ({ nameservers }),
  })
}
