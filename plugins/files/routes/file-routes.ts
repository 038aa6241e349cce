// A site's files: list a directory, stat a path, make directories, move, copy, delete and chmod. Each runs on the
// site's node as the site's user; each change is audited once the node has made it (the node's disk is no
// transaction, and a database transaction is not held open while a node works).

import {
  type AuditInput,
  defineRoute,
  keyedList,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  type Trx,
  t,
} from '../../../core/index.ts'
import { nodeUnavailable } from '../../nodes/contract.ts'
import { runningSiteProblems, siteScopes } from '../../sites/contract.ts'
import type { Deleted } from '../node/file-changes.ts'
import { filesProblems as problems } from '../problems.ts'
import type { FileEntry, FileListing } from '../protocol.ts'
import {
  ChangeModeBody,
  DeletedFiles,
  DeleteFilesBody,
  MakeDirectoryBody,
  MoveFileBody,
  SiteFile,
  SitePathField,
} from '../schemas.ts'
import { siteFilesOf } from '../site-files.ts'

const SiteParams = { id: 'site' } as const

/** Refusals every operation on a site's paths may give. */
export const pathProblems = [
  ...runningSiteProblems,
  problems.invalid_path,
  problems.path_escapes_site,
  problems.path_reserved,
  problems.file_not_found,
  problems.not_a_directory,
  problems.permission_denied,
  problems.file_operation_failed,
  nodeUnavailable,
] as const

/** Writes the audit entry of a change to a site's files. */
export async function auditFiles(
  context: PluginContext,
  audit: (trx: Trx, entry: AuditInput) => Promise<void>,
  site: { id: string; customerId: string },
  action: string,
  details: Readonly<Record<string, unknown>>,
): Promise<void> {
  await context.transaction((trx) =>
    audit(trx, { action, subject: { type: 'site', id: site.id }, customerId: site.customerId, details }),
  )
}

/** The routes under `/sites/{id}/files`. */
export function fileRoutes(context: PluginContext): RouteDefinition[] {
  const open = siteFilesOf(context)
  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/files',
      operationId: 'listSiteFiles',
      summary: 'List a directory of a site',
      description:
        'The entries of a directory of the site (default `/`, the site’s home: `htdocs`, `logs`, `tmp`), sorted by name, a page at a time. Links are listed as links, never followed; listing through a link is refused (`link_not_followed`).',
      scope: siteScopes.files,
      params: SiteParams,
      query: t.Object({ path: t.Optional(SitePathField('The directory. Default `/`.')) }),
      // Paged by the kernel as every list (limit 1 to 100, signed cursors): it once took limit=101 and any cursor.
      list: { item: SiteFile, key: 'name' },
      problems: [...pathProblems, problems.link_not_followed],
      async handler({ params, query, view }) {
        const files = await open(view, params.id)
        const path = query.path ?? '/'
        return keyedList(async (after, limit) => {
          const listing = await files.call<FileListing>({ op: 'list', path, after: after ?? null, limit })
          return listing.entries
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/files/stat',
      operationId: 'statSiteFile',
      summary: 'Read what is at a site path',
      description:
        'The file, directory or link at `path` (a link itself, not what it points to), with a file’s `etag`.',
      scope: siteScopes.files,
      params: SiteParams,
      query: t.Object({ path: SitePathField('What to look at.') }),
      responses: { 200: SiteFile },
      problems: pathProblems,
      async handler({ params, query, view }) {
        const files = await open(view, params.id)
        return files.call<FileEntry>({ op: 'stat', path: query.path })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/directories',
      operationId: 'makeSiteDirectory',
      summary: 'Make a directory in a site',
      description:
        'Makes the directory (and, with `parents`, its missing parents), owned by the site’s user. A disk with no room left for it is 422 `disk_quota_exceeded`.',
      scope: siteScopes.files,
      params: SiteParams,
      body: MakeDirectoryBody,
      idempotent: false,
      responses: { 201: SiteFile },
      problems: [...pathProblems, problems.file_exists, problems.top_folder, problems.disk_quota_exceeded],
      async handler({ params, body, view, audit }) {
        const files = await open(view, params.id)
        const entry = await files.call<FileEntry>({
          op: 'mkdir',
          path: body.path,
          parents: body.parents ?? false,
        })
        await auditFiles(context, audit, files.site, 'file.mkdir', { path: entry.path })
        return Reply.created(entry, `/sites/${params.id}/files/stat?path=${encodeURIComponent(entry.path)}`)
      },
    }),
    ...(['move', 'copy'] as const).map((op) =>
      defineRoute({
        method: 'POST',
        path: `/sites/:id/files/${op}`,
        operationId: op === 'move' ? 'moveSiteFile' : 'copySiteFile',
        summary:
          op === 'move'
            ? 'Move or rename a file or directory of a site'
            : 'Copy a file or directory of a site',
        description:
          op === 'move'
            ? 'Renames `from` to `to` inside the site (a link moves as a link). `to` is the whole new path; something there already is 409 unless `overwrite` (a directory is never replaced).'
            : 'Copies `from` (a directory with everything in it; links as links, never what they point to) to `to`, keeping modes and times. Counts against the site’s disk quota (422 `disk_quota_exceeded`).',
        scope: siteScopes.files,
        params: SiteParams,
        body: MoveFileBody,
        responses: { 200: SiteFile },
        problems: [
          ...pathProblems,
          problems.file_exists,
          problems.is_a_directory,
          problems.top_folder,
          problems.disk_quota_exceeded,
        ],
        async handler({ params, body, view, audit }) {
          const files = await open(view, params.id)
          const entry = await files.call<FileEntry>({
            op,
            from: body.from,
            to: body.to,
            overwrite: body.overwrite ?? false,
          })
          await auditFiles(context, audit, files.site, `file.${op}`, { from: body.from, to: entry.path })
          return entry
        },
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/delete',
      operationId: 'deleteSiteFiles',
      summary: 'Delete files and directories of a site',
      description:
        'Deletes each path (a directory with everything in it; a link, not what it points to). Every path is checked first: one refused path (out of the site, a top folder) deletes nothing. Paths with nothing there are listed in `missing`. A path the site’s user cannot delete (a read-only folder inside it) is 403 `permission_denied` naming what was deleted (`removed`, audited) and what was not (`refused`).',
      scope: siteScopes.files,
      params: SiteParams,
      body: DeleteFilesBody,
      responses: { 200: DeletedFiles },
      problems: [...pathProblems, problems.top_folder, problems.is_a_directory],
      async handler({ params, body, view, audit }) {
        const files = await open(view, params.id)
        const result = await files.call<Deleted>({ op: 'delete', paths: body.paths })
        // What was deleted is audited, even when a path after it could not be.
        if (result.removed.length > 0)
          await auditFiles(context, audit, files.site, 'file.delete', { paths: result.removed })
        const [first] = result.refused
        if (first)
          throw new Problem(
            first.code === problems.is_a_directory.code
              ? problems.is_a_directory
              : problems.permission_denied,
            {
              detail: `${first.message}; deleted: ${result.removed.length}, not deleted: ${result.refused.length}`,
              extensions: { removed: result.removed, missing: result.missing, refused: result.refused },
            },
          )
        return { removed: result.removed, missing: result.missing }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/files/chmod',
      operationId: 'changeSiteFileMode',
      summary: 'Change the permissions of a file or directory of a site',
      description:
        'Sets the mode of a file or directory (never of a link, nor through one: `link_not_followed`).',
      scope: siteScopes.files,
      params: SiteParams,
      body: ChangeModeBody,
      responses: { 200: SiteFile },
      problems: [...pathProblems, problems.invalid_mode, problems.link_not_followed, problems.top_folder],
      async handler({ params, body, view, audit }) {
        const files = await open(view, params.id)
        const entry = await files.call<FileEntry>({ op: 'chmod', path: body.path, mode: body.mode })
        await auditFiles(context, audit, files.site, 'file.chmod', { path: entry.path, mode: entry.mode })
        return entry
      },
    }),
  ]
}
