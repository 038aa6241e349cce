// Download links: a short-lived URL for one file of a site that needs no credential (a browser's plain link, a
// `curl`), sealed with the panel's secret so it can be neither forged nor read, bound to the file's entity tag (a
// file saved since is another file), and streamed like any read, ranges included, whatever its size.

import {
  defineRoute,
  type PluginContext,
  Problem,
  Reply,
  type RouteCredential,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import { fileAnswer, fileReadHeaders } from '../file-stream.ts'
import { filesProblems as problems } from '../problems.ts'
import type { FileEntry } from '../protocol.ts'
import { DownloadLink, DownloadLinkBody } from '../schemas.ts'
import { siteFilesOf } from '../site-files.ts'
import { auditFiles, pathProblems } from './file-routes.ts'

/** How long a download link works. */
export const downloadLinkMs = 5 * 60_000

/** What a link carries, sealed. */
interface LinkClaims {
  readonly v: 1
  readonly siteId: string
  readonly customerId: string
  readonly path: string
  readonly etag: string
  readonly expiresAt: number
}

/** The download routes. */
export function downloadRoutes(context: PluginContext): RouteDefinition[] {
  const open = siteFilesOf(context)
  /** The link's token, as its `token` query parameter: the link is its own credential. */
  const linkCredential: RouteCredential<LinkClaims> = {
    name: 'downloadLinkToken',
    scheme: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description:
        'A download link’s token (`POST /sites/{id}/files/download-links`): sealed with the panel’s secret, valid 5 minutes, for one file as it was.',
    },
    async authenticate(request) {
      const token = new URL(request.url).searchParams.get('token') ?? ''
      try {
        if (token.length <= 12_000) {
          const claims = JSON.parse(context.secrets.open(token)) as LinkClaims
          if (claims.v === 1 && claims.expiresAt > Date.now()) return claims
        }
      } catch {
        // Altered, sealed under another secret, or not a link at all.
      }
      throw new Problem(problems.invalid_download_link)
    },
  }
  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/download-links',
      operationId: 'createSiteFileDownloadLink',
      summary: 'Make a download link for a file of a site',
      description: `A URL that downloads the file without a credential for ${downloadLinkMs / 60_000} minutes (ranges included, any size): for a browser’s plain link or a script. It is bound to the file as it is now: once the file changes the link answers 404 \`invalid_download_link\`. Audited.`,
      scope: siteScopes.files,
      params: { id: 'site' },
      body: DownloadLinkBody,
      idempotent: false,
      responses: { 201: DownloadLink },
      problems: [...pathProblems, problems.is_a_directory, problems.not_a_file, problems.link_not_followed],
      async handler({ params, body, view, request, audit }) {
        const files = await open(view, params.id)
        const entry = await files.call<FileEntry>({ op: 'stat', path: body.path })
        if (entry.type === 'link')
          throw new Problem(problems.link_not_followed, { extensions: { target: entry.target } })
        if (entry.type === 'directory') throw new Problem(problems.is_a_directory)
        if (entry.type !== 'file' || entry.etag === null) throw new Problem(problems.not_a_file)
        const expiresAt = Date.now() + downloadLinkMs
        const claims: LinkClaims = {
          v: 1,
          siteId: files.site.id,
          customerId: files.site.customerId,
          path: entry.path,
          etag: entry.etag,
          expiresAt,
        }
        const token = context.secrets.seal(JSON.stringify(claims))
        // The API's own base, as the client reached it (a panel mounted under a prefix keeps it).
        const url = new URL(request.url)
        const base = url.pathname.slice(0, url.pathname.lastIndexOf(`/sites/${params.id}/`))
        await auditFiles(context, audit, files.site, 'file.share', { path: entry.path })
        const path = `/file-downloads?token=${encodeURIComponent(token)}`
        const link = { url: `${url.origin}${base}${path}`, expiresAt: new Date(expiresAt).toISOString() }
        return new Reply(201, link, {}, path)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/file-downloads',
      operationId: 'downloadSiteFile',
      summary: 'Download a file through a download link',
      description:
        'The file a download link names, as `GET /sites/{id}/files/content` answers it (ranges, `ETag`, an attachment), without a credential: the link is the credential. 404 `invalid_download_link` once it expired, was altered, or the file changed.',
      public: true,
      credential: linkCredential,
      query: t.Object({
        token: t.String({ minLength: 10, maxLength: 12_000, description: 'The link’s token.' }),
      }),
      ownPreconditions: true,
      requestHeaders: fileReadHeaders,
      responses: {
        200: {
          description: 'The whole file.',
          contentType: 'application/octet-stream',
          headers: { ETag: 'The file’s entity tag.' },
        },
        206: {
          description: 'The range asked for.',
          contentType: 'application/octet-stream',
          headers: { ETag: 'The file’s entity tag.', 'Content-Range': '`bytes start-end/size`.' },
        },
        304: {
          description: 'The file still has the tag sent in `If-None-Match`.',
          headers: { ETag: 'The file’s entity tag.' },
        },
      },
      problems: [
        ...pathProblems,
        problems.invalid_download_link,
        problems.range_not_satisfiable,
        problems.is_a_directory,
        problems.not_a_file,
        problems.link_not_followed,
        problems.file_too_large,
      ],
      async handler({ principal, request }) {
        const claims = principal as LinkClaims
        // The file as it was when the link was made, or none: a link to a file deleted, moved or changed since is
        // no longer valid (the site's own refusals still say why: suspended, not ready).
        const gone = new Set([
          problems.file_not_found.code,
          problems.path_escapes_site.code,
          problems.link_not_followed.code,
          problems.not_a_directory.code,
          problems.is_a_directory.code,
          problems.not_a_file.code,
        ])
        const answer = await (async () => {
          const files = await open({ kind: 'customers', customerIds: [claims.customerId] }, claims.siteId)
          return fileAnswer(files, claims.path, request, {
            limitBytes: Number.MAX_SAFE_INTEGER,
            signal: request.signal,
          })
        })().catch((error: unknown) => {
          if (error instanceof Problem && gone.has(error.code))
            throw new Problem(problems.invalid_download_link)
          throw error
        })
        if (answer.headers.etag !== claims.etag) throw new Problem(problems.invalid_download_link)
        return answer
      },
    }),
  ]
}
