// The certificates plugin: customers' TLS certificates, uploaded (checked, the key sealed) or issued through ACME,
// served by the nodes of the sites they are attached to, and watched for expiry. docs/certificates.md describes it.

import { definePlugin } from '../../core/index.ts'
import { siteRecordParts } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeReconcilers } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import type { AcmeSettings } from './acme/acme-settings.ts'
import { letsEncryptDirectory } from './acme/acme-settings.ts'
import { issueJob } from './acme/issue-job.ts'
import { Certificate, certificateScopes, ExpiringCertificate, FailedIssuance } from './contract.ts'
import { certificateCustomerDependent } from './customer-deletion.ts'
import { expiryJob } from './expiry.ts'
import { expirySchedule } from './expiry-schedule.ts'
import { installJob } from './install-job.ts'
import { startIssuance } from './lifecycle.ts'
import { certificatesMigrations } from './migrations.ts'
import { certificatesProblems } from './problems.ts'
import { certificateReconciler, siteRestored } from './reconcile.ts'
import { certificateRecordPart } from './record-part.ts'
import { certificateRoutes } from './routes/certificates.ts'
import { siteCertificateRoutes } from './routes/site-certificates.ts'
import { removeAttachmentOf, siteUpdated } from './site-events.ts'

export type { AcmeSettings } from './acme/acme-settings.ts'
export { letsEncryptDirectory } from './acme/acme-settings.ts'

/** Options of {@link certificatesPlugin}. */
export interface CertificatesOptions {
  /** Where ACME certificates are ordered; default Let's Encrypt's production directory. `false`: uploads only. */
  readonly acme?: AcmeSettings | false
  /** How often the expiry check runs, in milliseconds. Default a day; 0 turns it off. */
  readonly expiryCheckIntervalMs?: number
  /** The clock certificates' status (`active`, `expiring`, `expired`) is judged by. Default the system's. */
  readonly now?: () => Date
}

/** TLS certificates of customers' sites. */
export const certificatesPlugin = (options: CertificatesOptions = {}) => {
  const acme = options.acme === undefined ? { directoryUrl: letsEncryptDirectory } : options.acme
  const intervalMs = options.expiryCheckIntervalMs ?? 86_400_000
  const now = options.now ?? (() => new Date())
  return definePlugin({
    name: 'certificates',
    version: '0.1.0',
    description:
      'TLS certificates: uploaded or issued through ACME, served by sites’ nodes, watched for expiry.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console', 'backups'],
    scopes: certificateScopes.declared,
    events: [
      {
        kind: 'certificate.created',
        description: 'A certificate was uploaded (`active`), or ordered through ACME (`issuing`).',
        payload: Certificate,
      },
      {
        kind: 'certificate.issued',
        description: 'An ACME certificate was issued for the first time (`active`).',
        payload: Certificate,
      },
      {
        kind: 'certificate.renewed',
        description: 'An ACME certificate was renewed: new serial, validity and key; its sites get it.',
        payload: Certificate,
      },
      {
        kind: 'certificate.failed',
        description:
          'Issuing or renewing an ACME certificate gave up; `error` is the CA’s problem (or why it could not be reached).',
        payload: FailedIssuance,
      },
      {
        kind: 'certificate.expiring',
        description: 'A certificate expires within 30, 14 or 7 days (each notice once per certificate).',
        payload: ExpiringCertificate,
      },
      {
        kind: 'certificate.expired',
        description: 'A certificate’s `notAfter` has passed.',
        payload: Certificate,
      },
      { kind: 'certificate.deleted', description: 'A certificate was deleted.', payload: Certificate },
    ],
    problems: certificatesProblems,
    migrations: certificatesMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // What it holds of a site goes into every backup's record of the site, when the installation has backups.
      context.extensionPoint(siteRecordParts).add(certificateRecordPart)
      context.extensionPoint(siteDependents).add({
        name: 'certificates',
        remove: (run, site) => run.transaction((trx) => removeAttachmentOf(trx, site.id)),
      })
      // A customer's deletion deletes its certificates.
      context.extensionPoint(customerDependents).add(certificateCustomerDependent(context))
      // A site's certificate its node no longer serves (a rebuilt node) is installed there again.
      context.extensionPoint(nodeReconcilers).add(certificateReconciler(context))
      // A site's new domain its certificate does not cover detaches it; a site provisioned again on its node
      // (reconciliation) is served with its certificate again.
      context.onEvent('site.updated', async (trx, event) => {
        await siteUpdated(context, trx, event)
        await siteRestored(context, trx, event)
      })
    },
    jobs: (context) => [
      installJob(context),
      expiryJob(context, {
        now,
        renew: acme ? async (trx, row) => void (await startIssuance(trx, context, row)) : false,
      }),
      ...(acme ? [issueJob(context, acme, now)] : []),
    ],
    start(context) {
      return intervalMs > 0 ? expirySchedule(context, intervalMs) : () => {}
    },
    routes: (context) => [
      ...certificateRoutes(context, { acme: acme !== false, now }),
      ...siteCertificateRoutes(context),
    ],
    // Whether `{ source: "acme" }` can be ordered here, so a client offers it only where it works.
    capabilities: () => ({ acme: acme !== false }),
  })
}
