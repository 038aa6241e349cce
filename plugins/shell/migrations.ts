// The shell plugin's tables: shell sessions and their recordings (sealed chunks of asciicast).

import type { Migration } from '../../core/index.ts'

/** A shell session. */
export interface ShellSessionsTable {
  id: string
  site_id: string
  customer_id: string
  node_id: string
  status: string
  token_hash: string | null
  created_at: string
  expires_at: string
  started_at: string | null
  ended_at: string | null
  /** While open: renewed by the instance relaying it, so a session of a crashed instance stops counting. */
  seen_at: string | null
  end_reason: string | null
  exit_code: number | null
  recording_bytes: number
  requested_by_user_id: string | null
  requested_by_token_id: string | null
}

/** A piece of a session's recording: asciicast v2 lines, sealed. */
export interface ShellRecordingsTable {
  session_id: string
  seq: number
  sealed: string
}

export type ShellTables = {
  shell_sessions: ShellSessionsTable
  shell_recordings: ShellRecordingsTable
}

export const shellMigrations: Migration[] = [
  {
    id: '0001_shell_sessions',
    async up(db) {
      await db.schema
        .createTable('shell_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('ended_at', 'text')
        .addColumn('seen_at', 'text')
        .addColumn('end_reason', 'text')
        .addColumn('exit_code', 'integer')
        .addColumn('recording_bytes', 'integer', (c) => c.notNull())
        .addColumn('requested_by_user_id', 'text')
        .addColumn('requested_by_token_id', 'text')
        .execute()
      await db.schema
        .createIndex('shell_sessions_site_idx')
        .on('shell_sessions')
        .columns(['site_id', 'id'])
        .execute()
      await db.schema
        .createTable('shell_recordings')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('shell_recordings_pk', ['session_id', 'seq'])
        .execute()
    },
  },
]
