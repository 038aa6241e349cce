// The `certificate.install` job: makes a site's node serve the certificate its attachment names, or none once the
// attachment is `removing`, and records the outcome, applying again while the attachment changed under it.

import { type JobDefinition, JobFailure, type JobRun, type PluginContext } from '../../core/index.ts'
import { nodeCommand, nodeDirectory, type SiteCertificate } from '../nodes/contract.ts'
import { certificateJobKinds } from './lifecycle.ts'
import type { CertificatesTable } from './migrations.ts'
import {
  deleteAttachment,
  findAttachment,
  findCertificateRow,
  putAttachment,
  recountSites,
} from './repository.ts'

/** How often a job applies again after finding the attachment changed while the node was being changed. */
const maxRounds = 5

/** `AB:CD:…` as the node names files: `abcd…`. */
export const nodeFingerprint = (fingerprint: string) => fingerprint.replaceAll(':', '').toLowerCase()

/** What the node is given of `row`: the certificate with its chain, and the key opened from its seal. */
function servedOf(context: PluginContext, row: CertificatesTable): SiteCertificate {
  if (!row.fingerprint || !row.certificate_pem || !row.private_key_sealed)
    throw new JobFailure(`Certificate ${row.id} is not issued yet`, 'certificate_not_issued')
  return {
    fingerprint: nodeFingerprint(row.fingerprint),
    chainPem: `${row.certificate_pem}${row.chain_pem ?? ''}`,
    privateKeyPem: context.secrets.open(row.private_key_sealed),
  }
}

/** The job definition. */
export function installJob(context: PluginContext): JobDefinition {
  const nodes = context.use(nodeDirectory)

  async function run(job: JobRun): Promise<Record<string, unknown>> {
    const siteId = job.subject.id
    const attempt = { jobId: job.id, attempt: job.attempt }
    for (let round = 0; round < maxRounds; round++) {
      const row = await findAttachment(context.db, siteId)
      if (!row) return { outcome: 'gone' }
      const node = await nodes.find(row.node_id)
      if (!node) throw new JobFailure(`The node ${row.node_id} of site ${siteId} is gone`, 'node_missing')
      const removing = row.status === 'removing'
      let fingerprint: string | null = null
      if (removing) {
        await job.progress(30, 'removing the certificate from the node')
        await nodes.send(node, nodeCommand('remove-certificate', { siteId }), job.signal, attempt)
      } else {
        const certificate = await findCertificateRow(context.db, row.certificate_id)
        if (!certificate)
          throw new JobFailure(`Certificate ${row.certificate_id} is gone`, 'certificate_missing')
        await job.progress(30, 'installing the certificate on the node')
        const served = servedOf(context, certificate)
        await nodes.send(
          node,
          nodeCommand('install-certificate', { siteId, certificate: served }),
          job.signal,
          attempt,
        )
        fingerprint = certificate.fingerprint
      }
      await job.progress(80, 'recording')
      const settled = await job.transaction(async (trx) => {
        const now = await findAttachment(trx, siteId)
        if (!now) return true
        if (now.revision !== row.revision) return false
        if (removing) {
          await deleteAttachment(trx, siteId)
          await recountSites(trx, [row.certificate_id])
        } else await putAttachment(trx, { ...now, status: 'installed', installed_fingerprint: fingerprint })
        return true
      })
      if (settled)
        return { outcome: removing ? 'removed' : 'installed', ...(fingerprint ? { fingerprint } : {}) }
    }
    throw new Error(`The certificate of site ${siteId} kept changing while its node was being changed`)
  }

  return {
    kind: certificateJobKinds.install,
    description:
      'Makes a site’s node serve the site’s certificate over HTTPS (key and chain installed, the server block checked and reloaded), or stop serving one after it was detached.',
    maxAttempts: 5,
    timeoutMs: 120_000,
    run,
    async onGivenUp(trx, job) {
      const row = await findAttachment(trx, job.subject.id)
      if (row && row.status !== 'installed') await putAttachment(trx, { ...row, status: 'failed' })
    },
  }
}
