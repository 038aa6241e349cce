// The DNS zones plugin's console pages, declared: the zones a caller sees (and a new one), and a zone's page with its
// zone file and records (added and deleted there). The forms' fields and the scopes of forms and delete buttons are
// the operations' (schema.d.ts, written by `bun scripts/write-api-types.ts examples/dns-zones/plinth.config.ts`).

import { createApi, customerColumn, resourcePages } from '../../../plugins/console/kit.ts'
import type { paths } from './schema.d.ts'

export default resourcePages(createApi<paths>(), {
  path: '/dns-zones',
  scope: 'dns:read',
  navigation: { group: 'Hosting', label: 'DNS zones' },
  list: {
    read: '/api/v1/dns-zones',
    title: 'DNS zones',
    subtitle: 'Domains whose records the panel keeps, each exported as a zone file.',
    empty: 'No DNS zones yet.',
    columns: [
      { header: 'Zone', cell: (zone) => zone.name },
      customerColumn,
      { header: 'Serial', cell: (zone) => zone.serial },
    ],
    create: {
      title: 'New zone',
      submitLabel: 'Add zone',
      fields: { name: { label: 'Domain', hint: 'Without the final dot: example.com' } },
    },
  },
  item: {
    read: '/api/v1/dns-zones/{id}',
    title: (zone) => zone.name,
    subtitle: (zone) => `Serial ${zone.serial}`,
    download: { path: '/api/v1/dns-zones/{id}/zone-file', label: 'Download zone file' },
    sections: [
      {
        read: '/api/v1/dns-zones/{id}/records',
        title: 'Records',
        empty: 'No records yet: the zone file holds only its SOA and NS.',
        columns: [
          { header: 'Name', cell: (record) => <code>{record.name}</code> },
          { header: 'Type', cell: (record) => record.type },
          { header: 'Content', cell: (record) => <code>{record.content}</code> },
          { header: 'TTL', cell: (record) => record.ttl },
        ],
        remove: { label: (record) => `${record.type} ${record.name}` },
        create: {
          title: 'Add a record',
          submitLabel: 'Add record',
          fields: {
            name: { hint: 'Relative: www, or @ for the zone itself' },
            content: { hint: 'MX: preference and host (10 mx.example.com)' },
            ttl: { label: 'TTL (seconds)', hint: '60 to 86400; default 3600' },
          },
        },
      },
    ],
  },
})
