// DNS zones of customers, with their records and a BIND zone-file export: a third-party plugin written only against
// the public contracts (the kernel's, the customers plugin's directory, the console's pages). See README.md.

import { type Db, definePlugin, resourceEvents } from '../../core/index.ts'
import { addConsolePages } from '../../plugins/console/contract.ts'
import { DnsRecord, DnsZone, dnsProblems } from './contract.ts'
import { isDomain } from './records.ts'
import { dnsRoutes } from './routes.ts'

/** Options of {@link dnsZonesPlugin}: what each exported zone says of the installation's name servers. */
export interface DnsZonesOptions {
  /** The name servers written as the zones' NS (the first is the SOA's). Default `ns1.example.net`, `ns2.…`. */
  readonly nameservers?: readonly string[]
  /** The SOA's mailbox of the zones' keeper. Default `hostmaster@example.net`. */
  readonly hostmaster?: string
}

const roles = ['owner', 'admin', 'developer'] as const
const limit = dnsProblems.dns_zone_limit_reached

/** The plugin's tables, their columns named as the API's fields. */
async function createTables(db: Db) {
  const table = async (name: string, text: string[], integer: string) => {
    let create = db.schema.createTable(name).addColumn('id', 'text', (c) => c.primaryKey())
    for (const column of [...text, 'createdAt', 'updatedAt'])
      create = create.addColumn(column, 'text', (c) => c.notNull())
    await create.addColumn(integer, 'integer', (c) => c.notNull()).execute()
  }
  await table('dns_zones', ['customerId', 'name'], 'serial')
  await table('dns_records', ['zoneId', 'customerId', 'name', 'type', 'content'], 'ttl')
  await db.schema.createIndex('dns_zones_name').unique().on('dns_zones').column('name').execute()
  await db.schema.createIndex('dns_records_zone').on('dns_records').columns(['zoneId', 'name']).execute()
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
    scopes: [
      { name: 'dns:read', description: 'Read DNS zones and their records', roles },
      { name: 'dns:manage', description: 'Change DNS zones and their records', roles },
    ],
    events: [
      ...resourceEvents('dns_zone', DnsZone, 'A DNS zone', ['created', 'deleted']),
      ...resourceEvents('dns_record', DnsRecord, 'A DNS record'),
    ],
    problems: dnsProblems,
    usage: [
      {
        name: 'dnsZones',
        description: 'DNS zones.',
        quota: { description: 'How many zones a customer may keep.', problem: limit },
      },
    ],
    migrations: [{ id: '0001_dns', up: (db) => createTables(db as Db) }],
    setup(context) {
      addConsolePages(context, import.meta.dir)
    },
    routes: (context) => dnsRoutes(context, { nameservers, hostmaster }),
    capabilities: () => ({ nameservers }),
  })
}
