// Archives of a site's files, made and extracted by jobs on the site's node: the paths checked on the node before
// the job starts (a missing one is 404 now, not a failed job later), the job's progress streamed at
// `GET /jobs/{id}/events`.

import {
  defineRoute,
  type HandlerInput,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import type { ArchiveInput, ExtractInput } from '../archive-jobs.ts'
import { filesProblems as problems } from '../problems.ts'
import { archiveFormatOf, type FileEntry } from '../protocol.ts'
import { SitePathField } from '../schemas.ts'
import { type SiteFiles, siteFilesOf } from '../site-files.ts'
import { pathProblems } from './file-routes.ts'

const ArchiveBody = t.Object(
  {
    paths: t.Array(SitePathField('A file, link or folder to put in the archive.'), {
      minItems: 1,
      maxItems: 100,
      description:
        'Paths of one folder; each is named in the archive relative to it (links stored as links).',
    }),
    to: SitePathField(
      'The archive to make: its name ends in `.zip`, `.tar.gz` or `.tgz`, which says its format.',
    ),
    overwrite: t.Optional(t.Boolean({ description: 'Replace an archive at `to`. Default false: 409.' })),
  },
  { $id: 'ArchiveFilesBody' },
)

const ExtractBody = t.Object(
  {
    path: SitePathField('The archive: a `.zip`, `.tar.gz` or `.tgz` file.'),
    to: SitePathField(
      'The folder its entries go in: made when missing; an existing one must be empty unless `overwrite`.',
    ),
    overwrite: t.Optional(
      t.Boolean({
        description: 'Extract into a folder that has files, replacing those the archive has. Default false.',
      }),
    ),
  },
  { $id: 'ExtractArchiveBody' },
)

const JobAccepted = t.Object(
  { jobId: t.String({ description: 'The job doing it, `job_…`.' }) },
  { $id: 'FileJobAccepted' },
)

/** The archive routes. */
export function archiveRoutes(context: PluginContext): RouteDefinition[] {
  const open = siteFilesOf(context)

  /** Starts the job `kind` on the site with `input`, audited under the same name with the job's id; answers 202. */
  async function startTask(
    files: SiteFiles,
    kind: 'file.archive' | 'file.extract',
    input: ArchiveInput | ExtractInput,
    { audit, enqueueJob }: Pick<HandlerInput<unknown, unknown, unknown, true>, 'audit' | 'enqueueJob'>,
  ): Promise<Reply> {
    const subject = { type: 'site', id: files.site.id }
    // The audit names what and where, as every file change does.
    const { overwrite: _overwrite, ...named } = input
    const jobId = await context.transaction(async (trx) => {
      const id = await enqueueJob(trx, {
        kind,
        customerId: files.site.customerId,
        subject,
        input: { ...input },
      })
      await audit(trx, {
        action: kind,
        subject,
        customerId: files.site.customerId,
        details: { ...named, jobId: id },
      })
      return id
    })
    return Reply.accepted({ jobId })
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/archive',
      operationId: 'archiveSiteFiles',
      summary: 'Make a zip or tar.gz of files of a site',
      description:
        'Starts a `file.archive` job (202 with `jobId`) that makes the archive `to` of `paths` (of one folder) on the site’s node, as the site’s user: links are stored as links, never what they point to. Its progress counts entries; its result is `{ entries, file }`. The archive counts against the disk quota (the job fails with `disk_quota_exceeded`).',
      scope: siteScopes.files,
      params: { id: 'site' },
      body: ArchiveBody,
      responses: { 202: { description: 'The job making the archive.', schema: JobAccepted } },
      problems: [...pathProblems, problems.invalid_archive, problems.file_exists, problems.top_folder],
      async handler({ params, body, view, ...helpers }) {
        const files = await open(view, params.id)
        if (!archiveFormatOf(body.to)) throw new Problem(problems.invalid_archive)
        for (const path of body.paths) await files.call<FileEntry>({ op: 'stat', path })
        const input: ArchiveInput = { paths: body.paths, to: body.to, overwrite: body.overwrite ?? false }
        return startTask(files, 'file.archive', input, helpers)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/extract',
      operationId: 'extractSiteArchive',
      summary: 'Extract a zip or tar.gz of a site',
      description:
        'Starts a `file.extract` job (202 with `jobId`) that extracts the archive at `path` into the folder `to` on the site’s node, as the site’s user. Every entry is checked first: an absolute name or one climbing with `..` fails the job with `archive_entry_escapes`, a link pointing out of the extracted files with `archive_link_escapes`, and nothing reaches `to`. Its progress counts entries; its result is `{ entries }`.',
      scope: siteScopes.files,
      params: { id: 'site' },
      body: ExtractBody,
      responses: { 202: { description: 'The job extracting the archive.', schema: JobAccepted } },
      problems: [
        ...pathProblems,
        problems.invalid_archive,
        problems.not_a_file,
        problems.link_not_followed,
        problems.top_folder,
      ],
      async handler({ params, body, view, ...helpers }) {
        const files = await open(view, params.id)
        if (!archiveFormatOf(body.path)) throw new Problem(problems.invalid_archive)
        const archive = await files.call<FileEntry>({ op: 'stat', path: body.path })
        if (archive.type === 'link')
          throw new Problem(problems.link_not_followed, { extensions: { target: archive.target } })
        if (archive.type !== 'file') throw new Problem(problems.not_a_file)
        const input: ExtractInput = { path: body.path, to: body.to, overwrite: body.overwrite ?? false }
        return startTask(files, 'file.extract', input, helpers)
      },
    }),
  ]
}
