// A site's certificate: which one its node serves over HTTPS. Attaching checks the certificate's names cover the
// site's domain; the site's `certificate.install` job then installs it on the node, or removes it after DELETE.

import {
  type ChangedResource,
  defineRoute,
  fieldProblem,
  lockRows,
  orNotFound,
  type PluginContext,
  Problem,
  type ProblemRef,
  type RouteDefinition,
  recorded,
  t,
} from '../../../core/index.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { namesCover } from '../certificate-checks.ts'
import { certificateScopes, SiteCertificate } from '../contract.ts'
import { moveAttachment } from '../lifecycle.ts'
import { certificatesProblems as problems } from '../problems.ts'
import { certificates, findAttachment, toSiteCertificate } from '../repository.ts'

const AttachCertificateBody = t.Object(
  {
    certificateId: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'A certificate of the site’s customer, `crt_…`, whose names cover the site’s domain.',
    }),
  },
  { $id: 'AttachCertificateBody' },
)

const SiteParams = { id: 'site' } as const

/** A refusal of the certificate named, at `body.certificateId`, with what explains it. */
function atCertificateId(ref: ProblemRef, extensions: Readonly<Record<string, unknown>>): Problem {
  return new Problem(ref, {
    errors: [{ location: 'body.certificateId', message: ref.detail, code: ref.code }],
    extensions,
  })
}

/** A site's certificate is the site's: its changes are audited on the site. */
const onTheSite = (action: string) => ({
  action,
  subject: (attachment: ChangedResource) => ({ type: 'site', id: String(attachment.siteId) }),
})

/** The routes under `/sites/{id}/certificate`. */
export function siteCertificateRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/certificate',
      operationId: 'getSiteCertificate',
      summary: 'Read the certificate a site serves',
      description:
        'Which certificate the site serves over HTTPS and whether its node has it yet. 404 when the site has none.',
      scope: certificateScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The site’s certificate.', schema: SiteCertificate } },
      async handler({ db, params, view }) {
        orNotFound(await sites.find(db, view, params.id))
        return toSiteCertificate(orNotFound(await findAttachment(db, params.id)))
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/certificate',
      operationId: 'attachSiteCertificate',
      summary: 'Serve a site over HTTPS with a certificate',
      description:
        'Attaches the certificate (replacing the one the site had) and starts the site’s `certificate.install` job (`jobId`): the node installs the key (readable by root only) and chain, adds the HTTPS server block on its `SITES_HTTPS_PORT`, checks it and reloads; the attachment is `installed` then. The certificate must belong to the site’s customer (422 `unknown_certificate`), be `active` or `expiring` (422 `certificate_not_usable`), and one of its names must cover the site’s domain (422 `certificate_name_mismatch`; wildcards cover one label). Answers 202.',
      scope: certificateScopes.manage,
      params: SiteParams,
      body: AttachCertificateBody,
      responses: {
        202: { description: 'The site’s certificate, `installing`.', schema: SiteCertificate },
      },
      problems: [
        problems.site_not_servable,
        problems.unknown_certificate,
        problems.certificate_not_usable,
        problems.certificate_name_mismatch,
      ],
      change: onTheSite('site_certificate.attach'),
      async handler({ trx, params, body, view, enqueueJob }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        if (site.status === 'deleting' || site.nodeId === null)
          throw new Problem(problems.site_not_servable, { extensions: { siteStatus: site.status } })
        // Locked: a DELETE of the certificate at the same time waits, then sees this site using it.
        const certificate = await lockRows(
          trx,
          certificates.visible(trx, view).where('certificates.id', '=', body.certificateId),
        ).executeTakeFirst()
        if (!certificate || certificate.customer_id !== site.customerId)
          throw fieldProblem(problems.unknown_certificate, 'body.certificateId')
        if (certificate.status !== 'active' && certificate.status !== 'expiring')
          throw atCertificateId(problems.certificate_not_usable, { certificateStatus: certificate.status })
        const names = JSON.parse(certificate.names) as string[]
        if (!namesCover(names, site.domain))
          throw atCertificateId(problems.certificate_name_mismatch, { domain: site.domain, names })
        const previous = await findAttachment(trx, site.id)
        const moved = await moveAttachment(trx, { enqueueJob }, previous, {
          siteId: site.id,
          customerId: site.customerId,
          nodeId: site.nodeId,
          certificateId: certificate.id,
          status: 'installing',
        })
        return recorded(toSiteCertificate(moved), {
          customerId: site.customerId,
          details: {
            certificateId: certificate.id,
            fingerprintSha256: certificate.fingerprint,
            previousCertificateId: previous?.certificate_id ?? null,
          },
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id/certificate',
      operationId: 'detachSiteCertificate',
      summary: 'Stop serving a site over HTTPS',
      description:
        'The attachment becomes `removing` and the site’s `certificate.install` job (`jobId`) removes the HTTPS server block, the key and the chain from the node; the attachment is gone then, and the certificate may be deleted. Answers 202.',
      scope: certificateScopes.manage,
      params: SiteParams,
      responses: {
        202: { description: 'The site’s certificate, `removing`.', schema: SiteCertificate },
      },
      change: onTheSite('site_certificate.detach'),
      async handler({ trx, params, view, enqueueJob }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        const previous = orNotFound(await findAttachment(trx, site.id))
        const moved = await moveAttachment(trx, { enqueueJob }, previous, {
          siteId: site.id,
          customerId: site.customerId,
          nodeId: previous.node_id,
          certificateId: previous.certificate_id,
          status: 'removing',
        })
        return recorded(toSiteCertificate(moved), {
          customerId: site.customerId,
          details: { certificateId: previous.certificate_id },
        })
      },
    }),
  ]
}
