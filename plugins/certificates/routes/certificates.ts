// Certificate operations: upload (checked before anything is kept) or order through ACME, list, read, renew,
// delete. The key is sealed at once and never leaves the store but for the node serving it.

import {
  defineRoute,
  enumOf,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  type Static,
  type TenantView,
  type Trx,
  t,
} from '../../../core/index.ts'
import { assertCustomerOpen, customerDirectory, openCustomerProblems } from '../../customers/contract.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { acmeDomainOf } from '../acme/acme-domains.ts'
import { checkUpload, maxPemBytes } from '../certificate-checks.ts'
import { Certificate, certificateScopes, certificateSources, certificateStatuses } from '../contract.ts'
import { startIssuance } from '../lifecycle.ts'
import { certificatesProblems as problems } from '../problems.ts'
import {
  certificates,
  deleteCertificateRow,
  insertCertificate,
  issuedColumns,
  newCertificateRow,
  toCertificate,
  updateCertificate,
} from '../repository.ts'

// At most 64 Ki characters; the checks refuse more than 64 KiB (`pem_too_large`), which UTF-8 may reach sooner.
const Pem = (description: string) => t.Optional(t.String({ maxLength: maxPemBytes, description }))

const CreateCertificateBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The owning customer, `cus_…`.' }),
    source: t.Optional(
      enumOf(certificateSources, {
        description:
          '`uploaded` (the default): the certificate and key given here; `acme`: issued for `domains` through the installation’s ACME CA.',
      }),
    ),
    certificatePem: Pem('Uploads: the certificate issued for the domains, one PEM block, without its chain.'),
    privateKeyPem: Pem(
      'Uploads: its private key, PEM (PKCS#8, or traditional RSA/EC), encrypted with `passphrase` or not. Sealed at once; never shown again.',
    ),
    chainPem: Pem('Uploads: the intermediates, PEM blocks in any order (a root is allowed and left out).'),
    passphrase: t.Optional(
      t.String({ maxLength: 1024, description: 'Uploads: the passphrase of an encrypted key. Never kept.' }),
    ),
    selfSigned: t.Optional(
      t.Boolean({ description: 'Uploads: accept a self-signed certificate (chain status `self-signed`).' }),
    ),
    domains: t.Optional(
      t.Array(t.String({ maxLength: 253 }), {
        minItems: 1,
        maxItems: 100,
        description:
          'ACME: the names to issue for, each the domain of one of the customer’s sites (whose node answers the CA’s HTTP-01 challenge). The first is the common name.',
      }),
    ),
  },
  { $id: 'CreateCertificateBody' },
)

const ListCertificatesQuery = t.Object({
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s certificates.' })),
  status: t.Optional(enumOf(certificateStatuses, { description: 'Only certificates in this state.' })),
  source: t.Optional(enumOf(certificateSources, { description: 'Only uploaded or only ACME certificates.' })),
})

const uploadFields = ['certificatePem', 'privateKeyPem', 'chainPem', 'passphrase', 'selfSigned'] as const

type CreateBody = Static<typeof CreateCertificateBody>

/** What creating may refuse: an upload's checks, or an order's. */
const createProblems = [
  kernelProblems.unknown_customer,
  ...openCustomerProblems,
  problems.certificate_fields_missing,
  problems.field_not_for_source,
  problems.pem_too_large,
  problems.chain_too_long,
  problems.invalid_certificate_pem,
  problems.invalid_private_key_pem,
  problems.private_key_passphrase_required,
  problems.wrong_private_key_passphrase,
  problems.invalid_chain_pem,
  problems.key_certificate_mismatch,
  problems.certificate_expired,
  problems.certificate_not_yet_valid,
  problems.certificate_is_ca,
  problems.weak_key,
  problems.incomplete_chain,
  problems.chain_not_for_certificate,
  problems.chain_issuer_not_ca,
  problems.certificate_without_names,
  problems.acme_disabled,
  problems.invalid_acme_domain,
  problems.acme_wildcard_unsupported,
  problems.acme_domain_not_hosted,
]

/** Options the routes need. */
export interface CertificateRouteOptions {
  /** Whether ACME certificates may be ordered. */
  readonly acme: boolean
  /** The clock a new certificate's status (`active`, `expiring`) is judged by. */
  readonly now: () => Date
}

/** The certificates routes. */
export function certificateRoutes(
  context: PluginContext,
  options: CertificateRouteOptions,
): RouteDefinition[] {
  const customers = context.use(customerDirectory)
  const sites = context.use(siteDirectory)

  /** An order through ACME: each domain that of one of the customer's sites, served by a node. */
  async function ordered(trx: Trx, view: TenantView, customerId: string, body: CreateBody) {
    const refusals = new FieldErrors()
    if (!options.acme) throw fieldProblem(problems.acme_disabled, 'body.source')
    for (const field of uploadFields)
      if (body[field] !== undefined) refusals.add(problems.field_not_for_source, `body.${field}`)
    if (body.domains === undefined) refusals.add(problems.certificate_fields_missing, 'body.domains')
    const domains: string[] = []
    for (const [index, given] of (body.domains ?? []).entries()) {
      const at = `body.domains.${index}`
      const domain = acmeDomainOf(given)
      if (domain === null) refusals.add(problems.invalid_acme_domain, at)
      else if (domain.startsWith('*.')) refusals.add(problems.acme_wildcard_unsupported, at)
      else {
        const site = await sites.findByDomain(trx, view, domain)
        const hosted =
          site && site.customerId === customerId && site.nodeId !== null && site.status !== 'deleting'
        if (!hosted) refusals.add(problems.acme_domain_not_hosted, at)
        else if (!domains.includes(domain)) domains.push(domain)
      }
    }
    if (refusals.hasAny()) throw refusals.toProblem()
    return newCertificateRow({
      customer_id: customerId,
      source: 'acme',
      status: 'issuing',
      acme_domains: JSON.stringify(domains),
    })
  }

  /** An upload: the certificate, its key and chain checked before anything is kept, the key sealed. */
  function uploaded(customerId: string, body: CreateBody) {
    const refusals = new FieldErrors()
    if (body.domains !== undefined) refusals.add(problems.field_not_for_source, 'body.domains')
    if (body.certificatePem === undefined)
      refusals.add(problems.certificate_fields_missing, 'body.certificatePem')
    if (body.privateKeyPem === undefined)
      refusals.add(problems.certificate_fields_missing, 'body.privateKeyPem')
    if (refusals.hasAny() || body.certificatePem === undefined || body.privateKeyPem === undefined)
      throw refusals.toProblem()
    const checked = checkUpload({
      certificatePem: body.certificatePem,
      privateKeyPem: body.privateKeyPem,
      ...(body.chainPem !== undefined ? { chainPem: body.chainPem } : {}),
      ...(body.passphrase !== undefined ? { passphrase: body.passphrase } : {}),
      ...(body.selfSigned !== undefined ? { selfSigned: body.selfSigned } : {}),
    })
    if (!checked.ok) throw checked.problem
    const sealed = context.secrets.seal(checked.certificate.privateKeyPem)
    return newCertificateRow({
      customer_id: customerId,
      source: 'uploaded',
      ...issuedColumns(checked.certificate, sealed, options.now()),
    })
  }

  return [
    ...resourceRoutes({
      item: Certificate,
      name: 'certificate',
      path: '/certificates',
      key: { id: 'crt' },
      scopes: { read: certificateScopes.read, manage: certificateScopes.manage },
      // Locked when deleted: an attachment made at the same time waits, and this reads the sites it added.
      table: { rows: certificates, toItem: toCertificate, lock: true },
      list: {
        summary: 'List certificates',
        description:
          'Only certificates of customers the caller may see, oldest first. Every filter narrows the list. Keys are never shown.',
        query: ListCertificatesQuery,
        filters: { customerId: 'customer_id', status: 'status', source: 'source' },
      },
      read: {
        summary: 'Read a certificate',
        description: 'The certificate, its chain and the sites using it; never its key.',
      },
      create: {
        summary: 'Upload a certificate, or order one through ACME',
        description:
          'An upload (`certificatePem`, `privateKeyPem`, optional `chainPem`, `passphrase`, `selfSigned`) is checked before anything is kept, every refusal at its field in one 422: readable PEM, the key matching the certificate, validity now, not a CA, a strong key, and a chain leading from the certificate towards a root (intermediates reordered; docs/certificates.md). The key is sealed at rest and never returned. With `source: "acme"` and `domains` (each the domain of one of the customer’s sites) the certificate is `issuing` while the `certificate.issue` job (`jobId`) orders it; it becomes `active` (`certificate.issued`) or `failed` (`certificate.failed`, with the CA’s problem in `acme.lastError`), and is renewed 30 days before it expires.',
        body: CreateCertificateBody,
        responses: {
          201: {
            description: 'The certificate: `active` (or `expiring`) when uploaded, `issuing` when ordered.',
            schema: Certificate,
            headers: { Location: 'URL of the certificate.' },
          },
        },
        problems: createProblems,
        record: {
          details: (certificate) => ({
            source: certificate.source,
            names: certificate.names,
            serial: certificate.serial,
            fingerprintSha256: certificate.fingerprintSha256,
            ...(certificate.acme ? { domains: (certificate.acme as { domains: string[] }).domains } : {}),
          }),
        },
        async handler({ trx, body, view, enqueueJob }) {
          // Missing and invisible customers answer alike, so a limited token learns nothing about others.
          const customer = await customers.find(trx, view, body.customerId)
          if (!customer) throw fieldProblem(kernelProblems.unknown_customer, 'body.customerId')
          assertCustomerOpen(customer)
          if (body.source !== 'acme') {
            const row = uploaded(customer.id, body)
            await insertCertificate(trx, row)
            return toCertificate(row)
          }
          const row = await ordered(trx, view, customer.id, body)
          await insertCertificate(trx, row)
          return toCertificate(await startIssuance(trx, { enqueueJob }, row))
        },
      },
      remove: {
        summary: 'Delete a certificate',
        description:
          'Removes the certificate and its sealed key, sending `certificate.deleted`. Refused while sites use it (409 `certificate_in_use`, listing them in `sites`): attach their successor, or detach it, first.',
        responses: { 204: { description: 'Deleted.' } },
        problems: [problems.certificate_in_use],
        record: { details: ({ source, names, serial }) => ({ source, names, serial }) },
        async handler({ trx, row }) {
          const using = JSON.parse(row.site_ids) as string[]
          if (using.length > 0)
            throw new Problem(problems.certificate_in_use, { extensions: { sites: using } })
          await deleteCertificateRow(trx, row.id)
          return toCertificate(row)
        },
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/certificates/:id/renew',
      operationId: 'renewCertificate',
      summary: 'Renew an ACME certificate now',
      description:
        'Starts the `certificate.issue` job (`jobId`) for an ACME certificate at once, instead of waiting for the daily check to renew it 30 days before it expires; a `failed` one is ordered again (`issuing`). The sites using it get the new certificate when it is issued (`certificate.renewed`). Answers 202.',
      scope: certificateScopes.manage,
      params: { id: 'crt' },
      responses: { 202: { description: 'The certificate, with its new job.', schema: Certificate } },
      problems: [problems.not_acme_certificate, problems.certificate_busy, problems.acme_disabled],
      change: { action: 'certificate.request_renewal' },
      async handler({ trx, params, view, enqueueJob }) {
        const found = await certificates.find(trx, view, params.id, { lock: true })
        if (found.source !== 'acme') throw new Problem(problems.not_acme_certificate)
        if (!options.acme) throw new Problem(problems.acme_disabled)
        if (found.issuing_job !== null)
          throw new Problem(problems.certificate_busy, { extensions: { jobId: found.issuing_job } })
        const ready =
          found.status === 'failed' ? await updateCertificate(trx, found.id, { status: 'issuing' }) : found
        const started = await startIssuance(trx, { enqueueJob }, ready)
        return recorded(toCertificate(started), { details: { jobId: started.job_id, from: found.status } })
      },
    }),
  ]
}
