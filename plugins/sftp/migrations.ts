// The SFTP plugin's table: the accounts of sites, as the API shows them, plus the node they live on.

import type { Migration } from '../../core/index.ts'

/** A row of `sftp_users`: columns named as the API's fields; booleans 0/1, lists as JSON text. */
export interface SftpUsersTable {
  id: string
  siteId: string
  customerId: string
  nodeId: string
  username: string
  passwordEnabled: number
  /** JSON: `[{ type, fingerprint, comment, openssh }]`. */
  publicKeys: string
  readOnly: number
  expiresAt: string | null
  host: string
  port: number
  /** JSON: `["SHA256:…"]`. */
  hostKeyFingerprints: string
  createdAt: string
  updatedAt: string
}

export const sftpMigrations: Migration[] = [
  {
    id: '0001_sftp_users',
    async up(db) {
      let table = db.schema.createTable('sftp_users').addColumn('id', 'text', (c) => c.primaryKey())
      for (const column of ['siteId', 'customerId', 'nodeId', 'username', 'publicKeys', 'host'])
        table = table.addColumn(column, 'text', (c) => c.notNull())
      table = table
        .addColumn('passwordEnabled', 'integer', (c) => c.notNull())
        .addColumn('readOnly', 'integer', (c) => c.notNull())
        .addColumn('expiresAt', 'text')
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('hostKeyFingerprints', 'text', (c) => c.notNull())
        .addColumn('createdAt', 'text', (c) => c.notNull())
        .addColumn('updatedAt', 'text', (c) => c.notNull())
      await table.execute()
      await db.schema
        .createIndex('sftp_users_username_idx')
        .on('sftp_users')
        .column('username')
        .unique()
        .execute()
      await db.schema.createIndex('sftp_users_site_idx').on('sftp_users').columns(['siteId', 'id']).execute()
    },
  },
]
