// Download links of backups: `POST /sites/{id}/backups/{backupId}/download` makes a link that works once within
// 15 minutes (its token shown once, only its SHA-256 kept), and `GET /backup-downloads?token=…` streams the backup's
// snapshot as a `.tar.gz` made by the node that reaches its repository, read in pieces as the client takes them.

import { createHash, randomBytes } from 'node:crypto'
import {
  type Db,
  defineRoute,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteCredential,
  type RouteDefinition,
  recorded,
  t,
} from '../../../core/index.ts'
import { type Node, nodeDirectory } from '../../nodes/contract.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { backupScopes } from '../contract.ts'
import type { BackupDownloadsTable } from '../migrations.ts'
import type { ArchiveChunk } from '../node/protocol.ts'
import { backupsServiceName } from '../node/protocol.ts'
import { runOnNode } from '../node-runs.ts'
import { backupsProblems } from '../problems.ts'
import { backupById, backupTables, findBackup, targetById } from '../repository.ts'
import { siteRepository } from '../site-repository.ts'

/** How long a download link works. */
export const downloadLinkMs = 15 * 60_000

/** Bytes of the archive asked of the node at a time (an agent's answer holds 8 MiB, base64 makes 4 MiB that). */
const chunkBytes = 4 * 1024 * 1024

/** A download link as its maker sees it, once. */
export const BackupDownloadLink = t.Object(
  {
    url: t.String({
      description: 'The link: a GET streams the backup as a `.tar.gz`, once, without a credential.',
    }),
    expiresAt: t.String({ format: 'date-time' }),
  },
  { $id: 'BackupDownloadLink' },
)

/** The SHA-256 of a link's token, as the table keeps it. */
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

/** Everyone's view: the link is the credential. */
const everyone = { kind: 'all' } as const

/** The download routes. */
export function downloadRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)

  /** The node that reaches the backup's repository: the one that took it for a `local` target, else the site's. */
  async function archivingNode(
    kind: string,
    takenOn: string | null,
    siteNodeId: string | null,
  ): Promise<Node> {
    const node = await nodes.find((kind === 'local' ? takenOn : siteNodeId) ?? '')
    if (!node)
      throw new Problem(backupsProblems.download_failed, { extensions: { reason: 'node_unreachable' } })
    return node
  }

  /** The link whose token hashes to `hash`, usable now; else 404 `download_link_invalid` or 410. */
  async function linkOf(db: Db, hash: string): Promise<BackupDownloadsTable> {
    const link = await backupTables(db)
      .selectFrom('backup_downloads')
      .selectAll()
      .where('token_hash', '=', hash)
      .executeTakeFirst()
    if (!link) throw new Problem(backupsProblems.download_link_invalid)
    if (link.used_at !== null || link.expires_at <= nowIso())
      throw new Problem(backupsProblems.download_link_used)
    return link
  }

  /** The link's token, as its `token` query parameter: the link is its own credential. */
  const linkCredential: RouteCredential<string> = {
    name: 'backupDownloadToken',
    scheme: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description:
        'A backup download link’s token (`POST /sites/{id}/backups/{backupId}/download`): works once, within 15 minutes; the panel keeps only its SHA-256.',
    },
    async authenticate(request) {
      const token = new URL(request.url).searchParams.get('token') ?? ''
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new Problem(backupsProblems.download_link_invalid)
      const hash = hashOf(token)
      await linkOf(context.db, hash)
      return hash
    },
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/backups/:backupId/download',
      operationId: 'createBackupDownloadLink',
      summary: 'Make a download link for a backup',
      description: `A link that downloads the completed backup as a \`.tar.gz\` (its files under \`files/\`, its dumps under \`databases/\`, the site’s record as \`record.json\`) without a credential, once, within ${downloadLinkMs / 60_000} minutes. Its token is shown only here: the panel keeps its SHA-256 alone, so a replay of this request cannot answer it again (no \`Idempotency-Key\`). Audited.`,
      scope: backupScopes.manage,
      params: { id: 'site', backupId: 'bkp' },
      idempotent: false,
      showsSecret: true,
      responses: { 201: { description: 'The link (shown once).', schema: BackupDownloadLink } },
      problems: [backupsProblems.backup_not_completed],
      // The audit entry's subject and details are the handler's (`recorded`): never the link itself.
      change: { action: 'backup.download' },
      async handler({ trx, params, view, request }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        const backup = orNotFound(await findBackup(trx, site.id, params.backupId))
        if (backup.status !== 'completed') throw new Problem(backupsProblems.backup_not_completed)
        const token = randomBytes(32).toString('base64url')
        const now = Date.now()
        const row: BackupDownloadsTable = {
          token_hash: hashOf(token),
          backup_id: backup.id,
          site_id: site.id,
          customer_id: site.customerId,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + downloadLinkMs).toISOString(),
          used_at: null,
        }
        await backupTables(trx).insertInto('backup_downloads').values(row).execute()
        // The API's own base, as the client reached it (a panel mounted under a prefix keeps it).
        const url = new URL(request.url)
        const base = url.pathname.slice(0, url.pathname.lastIndexOf(`/sites/${params.id}/`))
        const path = `/backup-downloads?token=${token}`
        const link = { url: `${url.origin}${base}${path}`, expiresAt: row.expires_at }
        return recorded(new Reply(201, link, { 'cache-control': 'no-store' }), {
          customerId: site.customerId,
          subject: { type: 'backup', id: backup.id },
          details: { siteId: site.id, expiresAt: row.expires_at },
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/backup-downloads',
      operationId: 'downloadBackup',
      summary: 'Download a backup through its link',
      description:
        'The backup as a `.tar.gz` (`Content-Disposition: attachment`), made whole on the node first (the headers, with `Content-Length`, wait for it), then streamed as the client reads it. The link is the credential and works once: 404 `download_link_invalid` for a token the panel never made (or whose backup is gone), 410 `download_link_used` once it was used or expired.',
      public: true,
      credential: linkCredential,
      query: t.Object({
        token: t.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The link’s token.' }),
      }),
      responses: {
        200: {
          description: 'The archive.',
          contentType: 'application/gzip',
          headers: { 'Content-Disposition': '`attachment; filename="<domain>-<backup id>.tar.gz"`.' },
        },
      },
      problems: [
        backupsProblems.download_link_invalid,
        backupsProblems.download_link_used,
        backupsProblems.download_failed,
      ],
      async handler({ principal, request }) {
        const hash = principal as string
        // Claimed in one statement: of two requests with the same link, one streams and the other is 410.
        const claimed = await context.transaction(async (trx) => {
          const link = await linkOf(trx, hash)
          const taken = await backupTables(trx)
            .updateTable('backup_downloads')
            .set({ used_at: nowIso() })
            .where('token_hash', '=', hash)
            .where('used_at', 'is', null)
            .executeTakeFirst()
          if (Number(taken.numUpdatedRows) !== 1) throw new Problem(backupsProblems.download_link_used)
          return link
        })
        const backup = await backupById(context.db, claimed.backup_id)
        const site = await sites.find(context.db, everyone, claimed.site_id)
        const target = backup ? await targetById(context.db, backup.target_id) : undefined
        if (!backup?.snapshot_id || backup.forgotten_at !== null || !site || !target)
          throw new Problem(backupsProblems.download_link_invalid)
        const node = await archivingNode(target.kind, backup.node_id, site.nodeId)
        const { spec } = await siteRepository(context, target, site, 'push')
        const outcome = await runOnNode(
          nodes,
          node,
          site.id,
          { task: 'archive', repository: spec, snapshotId: backup.snapshot_id },
          { signal: request.signal, progress: async () => {} },
        )
        if (!outcome.ok || outcome.task !== 'archive')
          throw new Problem(backupsProblems.download_failed, {
            extensions: { reason: outcome.ok ? 'failed' : outcome.code },
          })
        const ask = (request: Record<string, unknown>, signal: AbortSignal) =>
          nodes.call(node, { siteId: site.id, service: backupsServiceName, request }, signal)
        const archiveId = outcome.archiveId
        const drop = () => ask({ op: 'archive.drop', archiveId }, AbortSignal.timeout(10_000)).catch(() => {})
        let offset = 0
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            try {
              const chunk = (await ask(
                { op: 'archive.read', archiveId, offset, length: chunkBytes },
                AbortSignal.timeout(120_000),
              )) as ArchiveChunk
              const bytes = Buffer.from(chunk.data, 'base64')
              if (bytes.length === 0) {
                controller.close()
                await drop()
                return
              }
              offset += bytes.length
              controller.enqueue(new Uint8Array(bytes))
            } catch (error) {
              controller.error(error)
              await drop()
            }
          },
          async cancel() {
            await drop()
          },
        })
        return new Reply(200, body, {
          'content-type': 'application/gzip',
          'content-length': String(outcome.bytes),
          'content-disposition': `attachment; filename="${site.domain}-${backup.id}.tar.gz"`,
          'cache-control': 'no-store',
        })
      },
    }),
  ]
}
