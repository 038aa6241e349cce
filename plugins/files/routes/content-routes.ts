// A site file's content: read (whole, or a range, streamed) and written (the body streamed to the node a part at a
// time into the site's tmp/, renamed into place once whole: never half a file, never held whole in memory), with
// the file's entity tag so two editors never overwrite each other (`If-Match`, 412).

import {
  defineRoute,
  newId,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import { sendParts } from '../file-parts.ts'
import { fileAnswer, fileReadHeaders } from '../file-stream.ts'
import { filesProblems as problems } from '../problems.ts'
import type { FileEntry } from '../protocol.ts'
import { SiteFile, SitePathField } from '../schemas.ts'
import { siteFilesOf } from '../site-files.ts'
import { preflightWrite } from '../write-preflight.ts'
import { auditFiles, pathProblems } from './file-routes.ts'

const SiteParams = { id: 'site' } as const
const PathQuery = t.Object({ path: SitePathField('The file.') })

/** Limits of reading and writing content. */
export interface ContentLimits {
  /** The most bytes one read answers (a range is cut to it). */
  readonly readBytes: number
  /** The largest file a write takes. */
  readonly uploadBytes: number
}

/** The content routes. */
export function contentRoutes(context: PluginContext, limits: ContentLimits): RouteDefinition[] {
  const open = siteFilesOf(context)
  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/files/content',
      operationId: 'readSiteFile',
      summary: 'Read a file of a site',
      description: `The file’s bytes, as an attachment (\`application/octet-stream\`, never run by a browser), with its \`ETag\`. One \`Range: bytes=…\` answers 206 with that part (cut to ${limits.readBytes} bytes); without a range a file larger than that is 422 \`file_too_large\`: read it in ranges or through a download link. \`If-None-Match\` with its tag answers 304. A link is not read through (\`link_not_followed\`).`,
      scope: siteScopes.files,
      params: SiteParams,
      query: PathQuery,
      ownPreconditions: true,
      requestHeaders: fileReadHeaders,
      responses: {
        200: {
          description: 'The whole file.',
          contentType: 'application/octet-stream',
          headers: { ETag: 'The file’s entity tag, for `If-Match` when writing it.' },
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
        problems.is_a_directory,
        problems.not_a_file,
        problems.link_not_followed,
        problems.file_too_large,
        problems.range_not_satisfiable,
      ],
      async handler({ params, query, view, request }) {
        const files = await open(view, params.id)
        return fileAnswer(files, query.path, request, {
          limitBytes: limits.readBytes,
          signal: request.signal,
        })
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/files/content',
      operationId: 'writeSiteFile',
      summary: 'Write a file of a site',
      description: `Writes the body (any bytes, up to ${limits.uploadBytes} bytes: \`UPLOAD_LIMIT_BYTES\`) as the file at \`path\`, made or replaced whole once every byte arrived (a replaced file keeps its mode). Streamed to the node a part at a time, never held in memory. \`If-Match: <etag>\` replaces only the file with that tag (412 \`file_changed\` when someone saved it meanwhile), \`If-Match: *\` only an existing file, \`If-None-Match: *\` only makes a new one. Counts against the site’s disk quota (422 \`disk_quota_exceeded\`). Answers 201 for a new file, 200 for a replaced one, with its new \`etag\`.`,
      scope: siteScopes.files,
      params: SiteParams,
      query: PathQuery,
      rawBody: { description: 'The file’s new content.' },
      ownPreconditions: true,
      requestHeaders: {
        'If-Match': {
          description:
            'The file’s `ETag` as the client last read it (or `*`: only an existing file): replaced only if it still has it, else 412 `file_changed` and nothing is written.',
        },
        'If-None-Match': {
          description: '`*`: only make a new file; 412 `file_changed` when one is there.',
          schema: t.Literal('*'),
        },
      },
      idempotent: false,
      responses: {
        200: {
          description: 'The file, replaced.',
          schema: SiteFile,
          headers: { ETag: 'The file’s new entity tag.' },
        },
        201: {
          description: 'The file, made.',
          schema: SiteFile,
          headers: { Location: 'Where the file is read.', ETag: 'The file’s entity tag.' },
        },
      },
      problems: [
        ...pathProblems,
        problems.is_a_directory,
        problems.not_a_file,
        problems.top_folder,
        problems.file_changed,
        problems.disk_quota_exceeded,
        problems.upload_too_large,
        problems.upload_incomplete,
        problems.link_not_followed,
      ],
      async handler({ params, query, view, request, audit }) {
        const files = await open(view, params.id)
        const declared = Number(request.headers.get('content-length') ?? Number.NaN)
        if (declared > limits.uploadBytes)
          throw new Problem(problems.upload_too_large, { extensions: { limitBytes: limits.uploadBytes } })
        const ifMatch = request.headers.get('if-match')?.trim() || null
        const ifNoneMatch = request.headers.get('if-none-match')?.trim() === '*' ? '*' : null
        // Checked before a byte moves (the same checks again when it is renamed into place).
        const current = await preflightWrite(files, query.path, { ifMatch, ifNoneMatch })
        const upload = newId('upl')
        let entry: FileEntry
        try {
          const sent = await sendParts(files, { id: upload, path: query.path }, request.body, {
            limit: limits.uploadBytes,
            signal: request.signal,
          })
          if (sent.broken instanceof Problem) throw sent.broken
          const size = sent.received
          if (sent.broken || (Number.isFinite(declared) && size !== declared))
            throw new Problem(problems.upload_incomplete)
          entry = await files.call<FileEntry>({
            op: 'upload-commit',
            upload,
            path: query.path,
            size,
            ifMatch,
            ifNoneMatch,
          })
        } catch (error) {
          await files.call({ op: 'upload-abort', upload, path: query.path }).catch(() => {})
          throw error
        }
        await auditFiles(context, audit, files.site, 'file.write', { path: entry.path, bytes: entry.size })
        if (current) return new Reply(200, entry, { etag: entry.etag ?? '' })
        // A new file says where it is read from, as every 201 does.
        const location = `/sites/${params.id}/files/content?path=${encodeURIComponent(entry.path)}`
        return new Reply(201, entry, { etag: entry.etag ?? '' }, location)
      },
    }),
  ]
}
