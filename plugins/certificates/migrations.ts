// The certificates plugin's tables. Customers and sites are referenced by id only: their plugins may be swapped.

import { type Migration, sql } from '../../core/index.ts'

/** Row of `certificates`. Facts of the certificate are null while an ACME one is still issuing. */
export interface CertificatesTable {
  id: string
  customer_id: string
  source: string
  status: string
  subject: string | null
  /** JSON array of DNS names. */
  names: string
  issuer: string | null
  serial: string | null
  not_before: string | null
  not_after: string | null
  /** `AB:CD:…`. */
  fingerprint: string | null
  key_type: string | null
  chain_status: string | null
  certificate_pem: string | null
  /** The served intermediates, PEM blocks joined. */
  chain_pem: string | null
  /** The private key as PKCS#8 PEM, sealed with the plugin's secret box: never returned, logged or audited. */
  private_key_sealed: string | null
  /** JSON array of the domains an ACME certificate is issued for; null for uploaded ones. */
  acme_domains: string | null
  /** JSON `AcmeError` of the last failed issuance, or null. */
  acme_error: string | null
  /** Not before this time is an ACME certificate's renewal started again (after one was started or failed). */
  renew_after: string | null
  /** JSON array of the sites whose attachment names it (kept with `site_certificates`, for lists). */
  site_ids: string
  /** The smallest expiry notice sent for the current `not_after` (30, 14, 7), or null. */
  notified_days: number | null
  job_id: string | null
  /** The ACME job issuing or renewing it now (cleared when it succeeds or gives up): one at a time. */
  issuing_job: string | null
  created_at: string
  updated_at: string
}

/** Row of `site_certificates`: the certificate a site serves, and how far its node got. One per site. */
export interface SiteCertificatesTable {
  site_id: string
  customer_id: string
  /** The node the site is on, kept so a removal reaches it. */
  node_id: string
  certificate_id: string
  status: string
  /** Goes up with every change its node must follow; a job that installed an older one runs again. */
  revision: number
  /** `AB:CD:…` of what the node serves now, or null. */
  installed_fingerprint: string | null
  job_id: string | null
  updated_at: string
}

/** Row of `acme_accounts`: the installation's account at an ACME directory. */
export interface AcmeAccountsTable {
  directory_url: string
  /** The account's key, PEM, sealed. */
  key_sealed: string
  account_url: string | null
  created_at: string
}

/** Row of `certificate_checks`: when the expiry check is next due (one row, `id` = 'expiry'). */
export interface CertificateChecksTable {
  id: string
  next_at: string
}

/** The plugin's tables, for `db.withTables<CertificatesTables>()`. */
export type CertificatesTables = {
  certificates: CertificatesTable
  site_certificates: SiteCertificatesTable
  acme_accounts: AcmeAccountsTable
  certificate_checks: CertificateChecksTable
}

export const certificatesMigrations: readonly Migration[] = [
  {
    id: '0001_create_certificates',
    async up(db) {
      await db.schema
        .createTable('certificates')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('subject', 'text')
        .addColumn('names', 'text', (c) => c.notNull())
        .addColumn('issuer', 'text')
        .addColumn('serial', 'text')
        .addColumn('not_before', 'text')
        .addColumn('not_after', 'text')
        .addColumn('fingerprint', 'text')
        .addColumn('key_type', 'text')
        .addColumn('chain_status', 'text')
        .addColumn('certificate_pem', 'text')
        .addColumn('chain_pem', 'text')
        .addColumn('private_key_sealed', 'text')
        .addColumn('acme_domains', 'text')
        .addColumn('acme_error', 'text')
        .addColumn('renew_after', 'text')
        .addColumn('site_ids', 'text', (c) => c.notNull())
        .addColumn('notified_days', 'integer')
        .addColumn('job_id', 'text')
        .addColumn('issuing_job', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await sql`create index certificates_customer_idx on certificates (customer_id, id)`.execute(db)
      // The expiry check reads certificates by end of validity.
      await sql`create index certificates_not_after_idx on certificates (not_after)`.execute(db)
      await db.schema
        .createTable('site_certificates')
        .addColumn('site_id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('certificate_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('installed_fingerprint', 'text')
        .addColumn('job_id', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await sql`create index site_certificates_certificate_idx on site_certificates (certificate_id)`.execute(
        db,
      )
      await db.schema
        .createTable('acme_accounts')
        .addColumn('directory_url', 'text', (c) => c.primaryKey())
        .addColumn('key_sealed', 'text', (c) => c.notNull())
        .addColumn('account_url', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('certificate_checks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('next_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
]
