// The files plugin's table: resumable uploads under way. Sites and customers are referenced by id only.

import { type Migration, sql } from '../../core/index.ts'

/** Row of `file_uploads`: an upload sent in one or more requests, its bytes so far in the site's tmp/.uploads/. */
export interface FileUploadsTable {
  /** `upl_…`: also the name of its file on the node. */
  id: string
  site_id: string
  customer_id: string
  /** Where the file goes once whole. */
  path: string
  size: number | string
  /** Bytes the node has, from the start. */
  received: number | string
  /** The `If-Match` the upload was started with (the file it replaces), or null. */
  if_match: string | null
  /** `*` when it may only make a new file. */
  if_none_match: string | null
  /** A request is sending bytes until then: another is refused (409 `upload_busy`). */
  busy_until: string | null
  created_at: string
  expires_at: string
}

export type FilesTables = { file_uploads: FileUploadsTable }

export const filesMigrations: readonly Migration[] = [
  {
    id: '0001_create_file_uploads',
    async up(db) {
      await db.schema
        .createTable('file_uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('received', 'bigint', (c) => c.notNull())
        .addColumn('if_match', 'text')
        .addColumn('if_none_match', 'text')
        .addColumn('busy_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute()
      await sql`create index file_uploads_site on file_uploads (site_id, expires_at)`.execute(db)
    },
  },
]
