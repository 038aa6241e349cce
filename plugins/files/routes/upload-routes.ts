// Resumable uploads: a large file sent in as many requests as the connection needs. The upload is made with its
// path and size; each `PUT` sends bytes from `Upload-Offset` (which must be where the node's copy ends), and the
// bytes that arrived before a connection broke are kept; once all have arrived the file is put in place, as a write
// of content puts it. Uploads not finished within a day are removed.

import {
  defineRoute,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  type Static,
  t,
} from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import { sendParts } from '../file-parts.ts'
import type { FilesTables, FileUploadsTable } from '../migrations.ts'
import { filesProblems as problems } from '../problems.ts'
import type { FileEntry } from '../protocol.ts'
import { SiteFile, SitePathField } from '../schemas.ts'
import { type SiteFiles, siteFilesOf } from '../site-files.ts'
import { preflightWrite } from '../write-preflight.ts'
import { pathProblems } from './file-routes.ts'

/** How long an upload may take, all its requests together. */
const uploadLifetimeMs = 24 * 3_600_000
/** How long one request holds an upload (renewed with each part it sends). */
const busyMs = 120_000

const FileUpload = t.Object(
  {
    id: t.String({ description: 'The upload, `upl_…`.' }),
    siteId: t.String(),
    path: t.String({ description: 'Where the file goes once whole.' }),
    size: t.Integer({ description: 'Its size in bytes.' }),
    received: t.Integer({ description: 'The bytes the node has, from the start: send the rest from here.' }),
    expiresAt: t.String({
      format: 'date-time',
      description: 'Removed, with its bytes, if not finished by then.',
    }),
    file: t.Union([SiteFile, t.Null()], {
      description: 'The file made, once every byte arrived; null before.',
    }),
  },
  { $id: 'FileUpload' },
)
type FileUpload = Static<typeof FileUpload>

const StartUploadBody = t.Object(
  {
    path: SitePathField('Where the file goes once whole.'),
    size: t.Integer({ minimum: 0, description: 'The whole file’s size in bytes.' }),
    ifMatch: t.Optional(
      t.String({
        maxLength: 200,
        description:
          'Replace only the file with this entity tag (`*`: only an existing file), as `If-Match` does.',
      }),
    ),
    ifNoneMatch: t.Optional(
      t.Literal('*', { description: '`*`: only make a new file, as `If-None-Match: *` does.' }),
    ),
  },
  { $id: 'StartUploadBody' },
)

const UploadParams = { id: 'site', uploadId: 'upl' } as const

const toUpload = (row: FileUploadsTable, file: FileEntry | null = null): FileUpload => ({
  id: row.id,
  siteId: row.site_id,
  path: row.path,
  size: Number(row.size),
  received: Number(row.received),
  expiresAt: row.expires_at,
  file,
})

/** The upload routes. */
export function uploadRoutes(
  context: PluginContext,
  limits: { readonly uploadBytes: number },
): RouteDefinition[] {
  const open = siteFilesOf(context)
  const uploads = () => context.db.withTables<FilesTables>()

  async function findUpload(siteId: string, id: string): Promise<FileUploadsTable | null> {
    const row = await uploads()
      .selectFrom('file_uploads')
      .selectAll()
      .where('id', '=', id)
      .where('site_id', '=', siteId)
      .executeTakeFirst()
    return row && row.expires_at > nowIso() ? row : null
  }

  /** Removes the site's uploads past their time, bytes on the node first. */
  async function sweep(files: SiteFiles): Promise<void> {
    const expired = await uploads()
      .selectFrom('file_uploads')
      .select(['id', 'path'])
      .where('site_id', '=', files.site.id)
      .where('expires_at', '<=', nowIso())
      .execute()
    for (const { id, path } of expired) {
      await files.call({ op: 'upload-abort', upload: id, path }).catch(() => {})
      await uploads().deleteFrom('file_uploads').where('id', '=', id).execute()
    }
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/uploads',
      operationId: 'startSiteFileUpload',
      summary: 'Start a resumable upload to a site',
      description: `Starts an upload of \`size\` bytes (up to ${limits.uploadBytes}, \`UPLOAD_LIMIT_BYTES\`) to \`path\`, sent with \`PUT /sites/{id}/files/uploads/{uploadId}\` in one request or many (a broken connection loses only what was not received: \`received\` says where to go on). Checked like a write of content before any byte moves (\`ifMatch\`, \`ifNoneMatch\`, a directory in the way). Unfinished uploads are removed after a day.`,
      scope: siteScopes.files,
      params: { id: 'site' },
      body: StartUploadBody,
      idempotent: false,
      responses: { 201: FileUpload },
      problems: [
        ...pathProblems,
        problems.is_a_directory,
        problems.not_a_file,
        problems.file_changed,
        problems.upload_too_large,
      ],
      async handler({ params, body, view, audit }) {
        const files = await open(view, params.id)
        if (body.size > limits.uploadBytes)
          throw new Problem(problems.upload_too_large, { extensions: { limitBytes: limits.uploadBytes } })
        await sweep(files)
        const ifMatch = body.ifMatch ?? null
        await preflightWrite(files, body.path, { ifMatch, ifNoneMatch: body.ifNoneMatch ?? null })
        const row: FileUploadsTable = {
          id: newId('upl'),
          site_id: files.site.id,
          customer_id: files.site.customerId,
          path: body.path,
          size: body.size,
          received: 0,
          if_match: ifMatch,
          if_none_match: body.ifNoneMatch ?? null,
          busy_until: null,
          created_at: nowIso(),
          expires_at: new Date(Date.now() + uploadLifetimeMs).toISOString(),
        }
        await context.transaction(async (trx) => {
          await trx.withTables<FilesTables>().insertInto('file_uploads').values(row).execute()
          await audit(trx, {
            action: 'file.upload',
            subject: { type: 'site', id: files.site.id },
            customerId: files.site.customerId,
            details: { path: body.path, size: body.size, uploadId: row.id },
          })
        })
        return Reply.created(toUpload(row), `/sites/${files.site.id}/files/uploads/${row.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/files/uploads/:uploadId',
      operationId: 'getSiteFileUpload',
      summary: 'Read how far a resumable upload got',
      description: 'The upload with `received`, the bytes the node has: send the rest from there.',
      scope: siteScopes.files,
      params: UploadParams,
      responses: { 200: FileUpload },
      problems: [...pathProblems],
      async handler({ params, view }) {
        const files = await open(view, params.id)
        return toUpload(orNotFound(await findUpload(files.site.id, params.uploadId)))
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/files/uploads/:uploadId',
      operationId: 'sendSiteFileUpload',
      summary: 'Send bytes of a resumable upload',
      description:
        'Sends the body as the upload’s bytes from `Upload-Offset` (a header, which must equal `received`: 409 `upload_offset_mismatch` otherwise, with `received`). What arrives is kept even when the connection breaks; the answer says `received`. When the last byte arrives the file is put in place (checked again as `ifMatch`/`ifNoneMatch` said) and the answer carries it in `file`; the upload is then gone. One request at a time per upload (409 `upload_busy`).',
      scope: siteScopes.files,
      params: UploadParams,
      rawBody: { description: 'The upload’s bytes from `Upload-Offset`.' },
      ownPreconditions: true,
      requestHeaders: {
        'Upload-Offset': {
          description:
            'Where these bytes start in the file: the upload’s `received` (409 `upload_offset_mismatch` otherwise).',
          required: true,
          schema: t.Integer({ minimum: 0 }),
        },
      },
      // Each request's bytes are progress, not a change anyone audits: the upload's start (`file.upload`) and the
      // file it makes (`file.write`) are.
      audited: false,
      responses: { 200: FileUpload },
      problems: [
        ...pathProblems,
        problems.upload_offset_mismatch,
        problems.upload_busy,
        problems.upload_too_large,
        problems.disk_quota_exceeded,
        problems.file_changed,
        problems.is_a_directory,
        problems.top_folder,
      ],
      async handler({ params, view, request, audit }) {
        const files = await open(view, params.id)
        const row = orNotFound(await findUpload(files.site.id, params.uploadId))
        const offset = Number(request.headers.get('upload-offset') ?? Number.NaN)
        if (offset !== Number(row.received))
          throw new Problem(problems.upload_offset_mismatch, {
            extensions: { received: Number(row.received) },
          })
        // One request at a time: it holds the upload while it sends.
        const now = nowIso()
        const claimed = await uploads()
          .updateTable('file_uploads')
          .set({ busy_until: new Date(Date.now() + busyMs).toISOString() })
          .where('id', '=', row.id)
          .where('received', '=', row.received)
          .where((eb) => eb.or([eb('busy_until', 'is', null), eb('busy_until', '<', now)]))
          .executeTakeFirst()
        if (Number(claimed.numUpdatedRows) !== 1) throw new Problem(problems.upload_busy)
        const record = (received: number) =>
          uploads()
            .updateTable('file_uploads')
            .set({ received, busy_until: new Date(Date.now() + busyMs).toISOString() })
            .where('id', '=', row.id)
            .execute()
            .then(() => {})
        const size = Number(row.size)
        let outcome: Awaited<ReturnType<typeof sendParts>>
        try {
          outcome = await sendParts(files, { id: row.id, path: row.path }, request.body, {
            start: offset,
            limit: size,
            sent: record,
            signal: request.signal,
          })
        } finally {
          await uploads()
            .updateTable('file_uploads')
            .set({ busy_until: null })
            .where('id', '=', row.id)
            .execute()
        }
        if (outcome.broken instanceof Problem) throw outcome.broken
        const now2 = { ...row, received: outcome.received }
        if (outcome.received < size) return toUpload(now2)
        const entry = await files.call<FileEntry>({
          op: 'upload-commit',
          upload: row.id,
          path: row.path,
          size,
          ifMatch: row.if_match,
          ifNoneMatch: row.if_none_match === '*' ? '*' : null,
        })
        await context.transaction(async (trx) => {
          await trx.withTables<FilesTables>().deleteFrom('file_uploads').where('id', '=', row.id).execute()
          await audit(trx, {
            action: 'file.write',
            subject: { type: 'site', id: files.site.id },
            customerId: files.site.customerId,
            details: { path: entry.path, bytes: entry.size, uploadId: row.id },
          })
        })
        return toUpload(now2, entry)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id/files/uploads/:uploadId',
      operationId: 'abortSiteFileUpload',
      summary: 'Abort a resumable upload',
      description: 'Removes the upload and the bytes it had; the file at its path is as it was.',
      scope: siteScopes.files,
      params: UploadParams,
      ownPreconditions: true,
      responses: { 204: { description: 'Aborted.' } },
      problems: [...pathProblems],
      async handler({ params, view, audit }) {
        const files = await open(view, params.id)
        const row = orNotFound(await findUpload(files.site.id, params.uploadId))
        await files.call({ op: 'upload-abort', upload: row.id, path: row.path })
        await context.transaction(async (trx) => {
          await trx.withTables<FilesTables>().deleteFrom('file_uploads').where('id', '=', row.id).execute()
          await audit(trx, {
            action: 'file.upload_abort',
            subject: { type: 'site', id: files.site.id },
            customerId: files.site.customerId,
            details: { path: row.path, uploadId: row.id },
          })
        })
        return Reply.noContent()
      },
    }),
  ]
}
