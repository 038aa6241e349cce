// Reads and writes of the certificates plugin's tables; the only file that knows its columns.

import { type Db, newId, nowIso, visibleTable } from '../../core/index.ts'
import type { CheckedCertificate } from './certificate-checks.ts'
import type { AcmeError, Certificate, CertificateStatus, SiteCertificate } from './contract.ts'
import type {
  AcmeAccountsTable,
  CertificatesTable,
  CertificatesTables,
  SiteCertificatesTable,
} from './migrations.ts'

const tables = (db: Db) => db.withTables<CertificatesTables>()

const day = 86_400_000
/** How long before `notAfter` a certificate is `expiring` (and an ACME one renewed). */
export const expiringWithinMs = 30 * day

/** The status a certificate valid until `notAfter` has at `now`. */
export function statusAt(notAfter: string, now: Date): CertificateStatus {
  const left = Date.parse(notAfter) - now.getTime()
  return left <= 0 ? 'expired' : left <= expiringWithinMs ? 'expiring' : 'active'
}

// Certificates

/** The API form of a row: never its key. */
export function toCertificate(row: CertificatesTable): Certificate {
  return {
    id: row.id,
    customerId: row.customer_id,
    source: row.source as Certificate['source'],
    status: row.status as CertificateStatus,
    subject: row.subject,
    names: JSON.parse(row.names) as string[],
    issuer: row.issuer,
    serial: row.serial,
    notBefore: row.not_before,
    notAfter: row.not_after,
    fingerprintSha256: row.fingerprint,
    keyType: row.key_type,
    chainStatus: row.chain_status as Certificate['chainStatus'],
    certificatePem: row.certificate_pem,
    chainPem: row.chain_pem,
    sites: JSON.parse(row.site_ids) as string[],
    acme:
      row.acme_domains === null
        ? null
        : {
            domains: JSON.parse(row.acme_domains) as string[],
            lastError: row.acme_error === null ? null : (JSON.parse(row.acme_error) as AcmeError),
          },
    jobId: row.job_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The columns an issued (or uploaded) certificate sets: its facts, served chain and sealed key. */
export function issuedColumns(
  checked: CheckedCertificate,
  sealedKey: string,
  now: Date,
): Pick<
  CertificatesTable,
  | 'status'
  | 'subject'
  | 'names'
  | 'issuer'
  | 'serial'
  | 'not_before'
  | 'not_after'
  | 'fingerprint'
  | 'key_type'
  | 'chain_status'
  | 'certificate_pem'
  | 'chain_pem'
  | 'private_key_sealed'
  | 'notified_days'
> {
  return {
    status: statusAt(checked.notAfter, now),
    subject: checked.subject,
    names: JSON.stringify(checked.names),
    issuer: checked.issuer,
    serial: checked.serial,
    not_before: checked.notBefore,
    not_after: checked.notAfter,
    fingerprint: checked.fingerprintSha256,
    key_type: checked.keyType,
    chain_status: checked.chainStatus,
    certificate_pem: checked.certificatePem,
    chain_pem: checked.chain.join(''),
    private_key_sealed: sealedKey,
    notified_days: null,
  }
}

/** A new certificate row: uploaded (its facts given) or ACME (issuing, facts to come). */
export function newCertificateRow(
  fields: Pick<CertificatesTable, 'customer_id' | 'source' | 'status'> & Partial<CertificatesTable>,
): CertificatesTable {
  const now = nowIso()
  return {
    id: newId('crt'),
    subject: null,
    names: '[]',
    issuer: null,
    serial: null,
    not_before: null,
    not_after: null,
    fingerprint: null,
    key_type: null,
    chain_status: null,
    certificate_pem: null,
    chain_pem: null,
    private_key_sealed: null,
    acme_domains: null,
    acme_error: null,
    renew_after: null,
    site_ids: '[]',
    notified_days: null,
    job_id: null,
    issuing_job: null,
    created_at: now,
    updated_at: now,
    ...fields,
  }
}

export async function insertCertificate(db: Db, row: CertificatesTable): Promise<void> {
  await tables(db).insertInto('certificates').values(row).execute()
}

/** Certificates as views reach them: those of the customers inside the view. */
export const certificates = visibleTable(tables, 'certificates', { customerColumn: 'customer_id' })

export function findCertificateRow(db: Db, id: string): Promise<CertificatesTable | undefined> {
  return tables(db).selectFrom('certificates').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Changes columns of a certificate, stamping `updated_at`; the row after the change. */
export async function updateCertificate(
  db: Db,
  id: string,
  changes: Partial<Omit<CertificatesTable, 'id' | 'customer_id' | 'source' | 'created_at'>>,
  /** `bookkeeping`: only what the resource does not show changed (notices sent, a renewal's pause): `updatedAt` stays. */
  kind: 'change' | 'bookkeeping' = 'change',
): Promise<CertificatesTable> {
  await tables(db)
    .updateTable('certificates')
    .set(kind === 'change' ? { ...changes, updated_at: nowIso() } : changes)
    .where('id', '=', id)
    .execute()
  const row = await findCertificateRow(db, id)
  if (!row) throw new Error(`Certificate ${id} vanished during an update`)
  return row
}

export async function deleteCertificateRow(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('certificates').where('id', '=', id).execute()
}

/** Certificates the expiry check looks at: served ones (active or expiring) that end before `until`. */
export function certificatesEndingBefore(db: Db, until: Date): Promise<CertificatesTable[]> {
  return tables(db)
    .selectFrom('certificates')
    .selectAll()
    .where('status', 'in', ['active', 'expiring'])
    .where('not_after', '<=', until.toISOString())
    .orderBy('not_after')
    .execute()
}

// Sites' certificates

export function toSiteCertificate(row: SiteCertificatesTable): SiteCertificate {
  return {
    siteId: row.site_id,
    certificateId: row.certificate_id,
    status: row.status as SiteCertificate['status'],
    installedFingerprint: row.installed_fingerprint,
    jobId: row.job_id,
    updatedAt: row.updated_at,
  }
}

export function findAttachment(db: Db, siteId: string): Promise<SiteCertificatesTable | undefined> {
  return tables(db)
    .selectFrom('site_certificates')
    .selectAll()
    .where('site_id', '=', siteId)
    .executeTakeFirst()
}

export function attachmentsOf(db: Db, certificateId: string): Promise<SiteCertificatesTable[]> {
  return tables(db)
    .selectFrom('site_certificates')
    .selectAll()
    .where('certificate_id', '=', certificateId)
    .orderBy('site_id')
    .execute()
}

/** Writes the site's attachment (new or changed), stamping `updated_at`; the row after. */
export async function putAttachment(
  db: Db,
  row: Omit<SiteCertificatesTable, 'updated_at'>,
): Promise<SiteCertificatesTable> {
  const written = { ...row, updated_at: nowIso() }
  const { site_id: _, ...changes } = written
  await tables(db)
    .insertInto('site_certificates')
    .values(written)
    .onConflict((oc) => oc.column('site_id').doUpdateSet(changes))
    .execute()
  return written
}

export async function deleteAttachment(db: Db, siteId: string): Promise<void> {
  await tables(db).deleteFrom('site_certificates').where('site_id', '=', siteId).execute()
}

/** Makes `certificates.site_ids` of each certificate given say which sites' attachments name it now. */
export async function recountSites(db: Db, certificateIds: readonly string[]): Promise<void> {
  for (const id of new Set(certificateIds)) {
    const sites = (await attachmentsOf(db, id)).map((row) => row.site_id)
    await tables(db)
      .updateTable('certificates')
      .set({ site_ids: JSON.stringify(sites) })
      .where('id', '=', id)
      .execute()
  }
}

// ACME accounts

export function findAcmeAccount(db: Db, directoryUrl: string): Promise<AcmeAccountsTable | undefined> {
  return tables(db)
    .selectFrom('acme_accounts')
    .selectAll()
    .where('directory_url', '=', directoryUrl)
    .executeTakeFirst()
}

/** Keeps a new account unless another run kept one first; the one kept. */
export async function keepAcmeAccount(db: Db, row: AcmeAccountsTable): Promise<AcmeAccountsTable> {
  await tables(db)
    .insertInto('acme_accounts')
    .values(row)
    .onConflict((oc) => oc.column('directory_url').doNothing())
    .execute()
  return (await findAcmeAccount(db, row.directory_url)) ?? row
}

export async function recordAccountUrl(db: Db, directoryUrl: string, accountUrl: string): Promise<void> {
  await tables(db)
    .updateTable('acme_accounts')
    .set({ account_url: accountUrl })
    .where('directory_url', '=', directoryUrl)
    .execute()
}

// The expiry check's schedule

/**
 * Whether this instance runs the expiry check now: true when it was due and this call moved it on by
 * `intervalMs` (only one instance's update matches). A new installation's first check is an interval away: it has
 * no certificate yet.
 */
export async function claimExpiryCheck(db: Db, intervalMs: number, now = new Date()): Promise<boolean> {
  const next = new Date(now.getTime() + intervalMs).toISOString()
  const existing = await tables(db)
    .selectFrom('certificate_checks')
    .selectAll()
    .where('id', '=', 'expiry')
    .executeTakeFirst()
  if (!existing) {
    await tables(db)
      .insertInto('certificate_checks')
      .values({ id: 'expiry', next_at: next })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    return false
  }
  if (existing.next_at > now.toISOString()) return false
  const result = await tables(db)
    .updateTable('certificate_checks')
    .set({ next_at: next })
    .where('id', '=', 'expiry')
    .where('next_at', '=', existing.next_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** The attachments of the sites on the node `nodeId` (reconciliation compares them with what the node serves). */
export function attachmentsOnNode(db: Db, nodeId: string): Promise<SiteCertificatesTable[]> {
  return tables(db)
    .selectFrom('site_certificates')
    .selectAll()
    .where('node_id', '=', nodeId)
    .orderBy('site_id')
    .execute()
}
