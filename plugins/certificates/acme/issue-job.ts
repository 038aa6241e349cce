// The `certificate.issue` job: orders an ACME certificate for its domains, proving each over HTTP-01 with the
// answer served by the node of the site serving the domain, and keeps it (first issuance or renewal); the sites
// using it are then given the new one. Each failed attempt records the CA's word on the certificate.

import { generateKeyPairSync } from 'node:crypto'
import * as acme from 'acme-client'
import {
  type JobDefinition,
  JobFailure,
  type JobRun,
  nowIso,
  type PluginContext,
} from '../../../core/index.ts'
import { nodeCommand, nodeDirectory } from '../../nodes/contract.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { checkUpload } from '../certificate-checks.ts'
import type { AcmeError } from '../contract.ts'
import { certificateJobKinds, emitCertificate, moveAttachment } from '../lifecycle.ts'
import type { CertificatesTable } from '../migrations.ts'
import { attachmentsOf, findCertificateRow, issuedColumns, updateCertificate } from '../repository.ts'
import { acmeClientFor, probeDirectory } from './acme-client.ts'
import type { AcmeSettings } from './acme-settings.ts'

/** A failure the CA described: its problem type and detail. */
export class AcmeProblem extends Error {
  constructor(
    readonly type: string,
    readonly detail: string,
  ) {
    super(detail)
    this.name = 'AcmeProblem'
  }
}

/** The ACME error recorded for `error`. */
function acmeErrorOf(error: unknown): AcmeError {
  const at = nowIso()
  if (error instanceof AcmeProblem) return { type: error.type, detail: error.detail.slice(0, 2000), at }
  // acme-client's retry handler fails so on a connection lost in the middle of an order.
  if (error instanceof TypeError && /response/.test(error.message))
    return { type: 'about:blank', detail: 'The connection to the ACME server failed', at }
  return { type: 'about:blank', detail: String((error as Error)?.message ?? error).slice(0, 2000), at }
}

/** An unencrypted P-256 key for the certificate, PKCS#8 PEM. */
function newCertificateKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
}

/** The job definition. */
export function issueJob(
  context: PluginContext,
  settings: AcmeSettings,
  now: () => Date = () => new Date(),
): JobDefinition {
  const nodes = context.use(nodeDirectory)
  const sites = context.use(siteDirectory)
  const everyone = { kind: 'all' } as const

  /** The node serving `domain` for `customerId`. */
  async function nodeServing(customerId: string, domain: string) {
    const site = await sites.findByDomain(context.db, everyone, domain)
    if (!site || site.customerId !== customerId || !site.nodeId || site.status === 'deleting')
      throw new JobFailure(
        `${domain} is no longer the domain of one of the customer’s sites`,
        'acme_domain_not_hosted',
      )
    const node = await nodes.find(site.nodeId)
    if (!node) throw new JobFailure(`The node of ${domain} is gone`, 'node_missing')
    return node
  }

  /** Orders the certificate: the chain PEM the CA issued and its key. */
  async function order(job: JobRun, row: CertificatesTable, domains: readonly string[]) {
    const attempt = { jobId: job.id, attempt: job.attempt }
    await job.progress(5, 'signing in to the ACME directory')
    await probeDirectory(settings)
    const client = await acmeClientFor(context, settings)
    job.signal.throwIfAborted()
    await job.progress(10, 'ordering')
    const placed = await client.createOrder({
      identifiers: domains.map((value) => ({ type: 'dns', value })),
    })
    const authorizations = await client.getAuthorizations(placed)
    for (const [index, authorization] of authorizations.entries()) {
      job.signal.throwIfAborted()
      const domain = authorization.identifier.value
      if (authorization.status === 'valid') continue
      const challenge = authorization.challenges.find((offered) => offered.type === 'http-01')
      if (!challenge)
        throw new AcmeProblem(
          'urn:ietf:params:acme:error:unsupportedIdentifier',
          `The CA offers no HTTP-01 challenge for ${domain}`,
        )
      const node = await nodeServing(row.customer_id, domain)
      const keyAuthorization = await client.getChallengeKeyAuthorization(challenge)
      await job.progress(15 + Math.round((index / authorizations.length) * 60), `proving ${domain}`)
      await nodes.send(
        node,
        nodeCommand('put-challenge', { token: challenge.token, keyAuthorization }),
        job.signal,
        attempt,
      )
      try {
        await client.completeChallenge(challenge)
        await client.waitForValidStatus(challenge)
      } catch (error) {
        // The CA's verdict is on the challenge: its problem type and detail say what it saw.
        const [again] = (await client.getAuthorizations(placed).catch(() => [])).filter(
          (found) => found.identifier.value === domain,
        )
        const seen = again?.challenges.find((offered) => offered.type === 'http-01')?.error as
          | { type?: string; detail?: string }
          | undefined
        if (seen?.detail) throw new AcmeProblem(seen.type ?? 'about:blank', `${domain}: ${seen.detail}`)
        throw error
      } finally {
        await nodes
          .send(
            node,
            nodeCommand('remove-challenge', { token: challenge.token }),
            AbortSignal.timeout(60_000),
            attempt,
          )
          .catch((error: unknown) =>
            context.log.warn({ err: error, jobId: job.id }, 'could not remove a challenge'),
          )
      }
    }
    await job.progress(80, 'finalizing')
    const keyPem = newCertificateKey()
    const [, csr] = await acme.crypto.createCsr({ commonName: domains[0], altNames: [...domains] }, keyPem)
    const finalized = await client.finalizeOrder(placed, csr)
    const chainPem = await client.getCertificate(finalized)
    return { chainPem, keyPem }
  }

  async function run(job: JobRun): Promise<Record<string, unknown>> {
    const row = await findCertificateRow(context.db, job.subject.id)
    if (!row || row.issuing_job !== job.id) return { outcome: 'gone' }
    const domains = JSON.parse(row.acme_domains ?? '[]') as string[]
    let issued: { chainPem: string; keyPem: string }
    try {
      issued = await order(job, row, domains)
    } catch (error) {
      const recorded = acmeErrorOf(error)
      await job.transaction((trx) => updateCertificate(trx, row.id, { acme_error: JSON.stringify(recorded) }))
      if (error instanceof JobFailure) throw error
      throw new Error(`ACME: ${recorded.detail}`)
    }
    await job.progress(90, 'keeping the certificate')
    const [leaf, ...rest] =
      issued.chainPem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\s*/g) ?? []
    // The chain is the CA's word: its root is in clients' stores for a public CA (Let's Encrypt's is), and a
    // private ACME CA's root is its operator's to distribute.
    const checked = checkUpload({
      certificatePem: leaf ?? '',
      chainPem: rest.join(''),
      privateKeyPem: issued.keyPem,
      trustedRoots: 'any',
    })
    if (!checked.ok)
      throw new JobFailure(
        `The CA issued a certificate the panel refuses: ${checked.problem.detail}`,
        'acme_certificate_refused',
      )
    const renewal = row.fingerprint !== null
    return job.transaction(async (trx) => {
      const current = await findCertificateRow(trx, row.id)
      if (!current || current.issuing_job !== job.id) return { outcome: 'gone' }
      const kept = await updateCertificate(trx, row.id, {
        ...issuedColumns(checked.certificate, context.secrets.seal(checked.certificate.privateKeyPem), now()),
        acme_error: null,
        renew_after: null,
        issuing_job: null,
      })
      await job.audit(trx, {
        action: renewal ? 'certificate.renew' : 'certificate.issue',
        subject: { type: 'certificate', id: row.id },
        customerId: row.customer_id,
        details: {
          domains,
          serial: kept.serial,
          notAfter: kept.not_after,
          ...(renewal ? { previousSerial: row.serial } : {}),
        },
      })
      await emitCertificate(trx, job, kept, renewal ? 'certificate.renewed' : 'certificate.issued')
      // The sites using it are given the new certificate.
      for (const attachment of await attachmentsOf(trx, row.id))
        if (attachment.status !== 'removing')
          await moveAttachment(trx, context, attachment, {
            siteId: attachment.site_id,
            customerId: attachment.customer_id,
            nodeId: attachment.node_id,
            certificateId: row.id,
            status: 'installing',
          })
      return { outcome: renewal ? 'renewed' : 'issued', serial: kept.serial, notAfter: kept.not_after }
    })
  }

  return {
    kind: certificateJobKinds.issue,
    description:
      'Issues (or renews) an ACME certificate: HTTP-01 challenges answered by the nodes of the sites serving its domains, then the certificate kept and given to the sites using it.',
    maxAttempts: 3,
    timeoutMs: 600_000,
    run,
    async onGivenUp(trx, job, outcome) {
      const row = await findCertificateRow(trx, job.subject.id)
      if (!row || row.issuing_job !== job.id) return
      const error: AcmeError = row.acme_error
        ? (JSON.parse(row.acme_error) as AcmeError)
        : { type: 'about:blank', detail: `The job was ${outcome}`, at: nowIso() }
      const failed = await updateCertificate(trx, row.id, {
        issuing_job: null,
        ...(row.status === 'issuing' ? { status: 'failed' } : {}),
        acme_error: JSON.stringify(error),
      })
      await job.audit(trx, {
        action: 'certificate.issue_fail',
        subject: { type: 'certificate', id: row.id },
        customerId: row.customer_id,
        details: { type: error.type, detail: error.detail, renewal: row.fingerprint !== null },
      })
      await emitCertificate(trx, job, failed, 'certificate.failed', { error })
    },
  }
}
