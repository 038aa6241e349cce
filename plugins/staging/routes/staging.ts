// A site's staging copy: `POST /sites/{id}/staging` makes it (a new site through the sites plugin's creation, the
// live site copied into it by a job), `GET /sites/{id}/staging` reads it from either site, `POST /sites/{id}/push`
// on the staging site pushes chosen files and tables to the live site.

import {
  customerInView,
  defineRoute,
  FieldErrors,
  kernelProblems,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  t,
} from '../../../core/index.ts'
import { restoreAdapters, siteCopies, siteCopyProblems } from '../../backups/contract.ts'
import { nodeDirectory, nodeUnavailable, requireReachableNode } from '../../nodes/contract.ts'
import {
  requireRunningSite,
  runningSiteProblems,
  Site,
  type SiteRef,
  siteCreation,
  siteCreationProblems,
  siteDirectory,
  siteScopes,
} from '../../sites/contract.ts'
import { PushRequest, Staging, type StagingPush, stagingScopes } from '../contract.ts'
import { type CreateInput, createJobKind, type PushInput, pushJobKind } from '../jobs.ts'
import { stagingProblems } from '../problems.ts'
import { stagingOf, stagingTables, toStaging, updateStaging } from '../repository.ts'

/** Options the routes take from the plugin's. */
export interface StagingRouteOptions {
  /** `STAGING_DOMAIN`: a staging copy's default domain is `staging-<handle>.<it>`; unset: `staging.<live domain>`. */
  readonly domain: string | null
}

const CreateStagingBody = t.Object(
  {
    domain: t.Optional(
      t.String({
        maxLength: 253,
        description:
          'The staging copy’s domain. Default: `staging-<live handle>.<STAGING_DOMAIN>` when the installation sets `STAGING_DOMAIN`, else `staging.<live domain>`.',
      }),
    ),
    nodeId: t.Optional(
      t.String({
        maxLength: 64,
        description: 'Platform staff only: the node it goes on. Default: placed as any new site.',
      }),
    ),
  },
  { $id: 'CreateStagingBody' },
)

const StagingAccepted = t.Object(
  {
    jobId: t.String({ description: 'The `staging.create` job copying the live site into the staging site.' }),
    site: Site,
    staging: Staging,
  },
  { $id: 'StagingAccepted' },
)

const PushAccepted = t.Object(
  {
    jobId: t.String({
      description: 'The `staging.push` job: its result names `undo`, the call that puts the live site back.',
    }),
    liveSiteId: t.String(),
    stagingSiteId: t.String(),
    preRestoreBackupId: t.String({
      description:
        'The live site’s backup the job takes before it changes anything: restoring it (the job’s `undo`) undoes the push.',
    }),
    staging: Staging,
  },
  { $id: 'PushAccepted' },
)

/** Where push paths may point: what a restore replaces (the backups plugin's rule, checked again by the node). */
const pushRoot = '/htdocs'
const tableName = /^[A-Za-z0-9_$]{1,64}$/

/** A path as the files API names it within `/htdocs`, made normal; null when it is not one. */
export function pushPath(path: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (!path.startsWith('/') || /[\u0000-\u001f\u007f]/.test(path)) return null
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.length === 0 || segments.some((segment) => segment === '..')) return null
  const normal = `/${segments.join('/')}`
  return normal === pushRoot || normal.startsWith(`${pushRoot}/`) ? normal : null
}

/** Runs a site creation, its refusals located at this body's fields (the same names as `POST /sites`'s). */
export function stagingRoutes(context: PluginContext, options: StagingRouteOptions): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const creation = context.use(siteCreation)
  const copies = context.use(siteCopies)
  const adapters = context.extensionPoint(restoreAdapters)

  const defaultDomain = (live: SiteRef) =>
    options.domain ? `staging-${live.handle}.${options.domain}` : `staging.${live.domain}`

  /** Refuses a site that cannot be backed up and copied now. */
  async function requireCopyable(trx: Parameters<typeof sites.find>[0], site: SiteRef): Promise<void> {
    requireRunningSite(site)
    requireReachableNode(site.nodeId ? await nodes.find(site.nodeId, trx) : null)
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/staging',
      operationId: 'createStaging',
      summary: 'Make a staging copy',
      description:
        'Makes the site’s staging copy: a new site of the same customer and type (created as `POST /sites` creates one, with its checks, quota and placement, so it needs `site:create` too) on `domain` (default `staging-<handle>.<STAGING_DOMAIN>`, or `staging.<domain>` when the installation sets no `STAGING_DOMAIN`), into which a `staging.create` job restores a fresh backup of the live site: its files but what the type keeps of its own (WordPress’s `wp-config.php`), its database, its URL search-replaced to the staging domain; a WordPress copy asks search engines not to index it. One staging copy per live site (409 `staging_exists`); a staging copy has none (409 `site_is_staging`). `site.staged` when it is ready.',
      scope: stagingScopes.manage,
      params: { id: 'site' },
      body: CreateStagingBody,
      idempotent: true,
      responses: {
        202: { description: 'The staging site is made and being copied into.', schema: StagingAccepted },
      },
      problems: [
        stagingProblems.staging_exists,
        stagingProblems.site_is_staging,
        stagingProblems.staging_unsupported,
        ...siteCopyProblems,
        ...siteCreationProblems,
        ...runningSiteProblems,
        nodeUnavailable,
        kernelProblems.insufficient_scope,
      ],
      change: {
        action: 'staging.create',
        subject: (answer) => ({ type: 'site', id: String((answer.staging as Staging).stagingSiteId) }),
        details: (answer) => ({ liveSiteId: (answer.staging as Staging).liveSiteId, jobId: answer.jobId }),
      },
      async handler({ trx, params, body, view, caller, enqueueJob, audit }) {
        const live = orNotFound(await sites.find(trx, view, params.id))
        const existing = await stagingOf(trx, live.id)
        if (existing?.staging_site_id === live.id)
          throw new Problem(stagingProblems.site_is_staging, {
            extensions: { liveSiteId: existing.live_site_id },
          })
        if (existing)
          throw new Problem(stagingProblems.staging_exists, {
            extensions: { stagingSiteId: existing.staging_site_id },
          })
        if (!adapters.get(live.type)) throw new Problem(stagingProblems.staging_unsupported)
        if (!(await customerInView(trx, caller.viewFor(siteScopes.create), live.customerId)))
          throw new Problem(kernelProblems.insufficient_scope, {
            detail: 'A staging copy is a new site: it needs `site:create` too.',
            extensions: { scope: siteScopes.create },
          })
        await requireCopyable(trx, live)
        const site = await creation.create(
          trx,
          caller,
          {
            customerId: live.customerId,
            type: live.type,
            domain: body.domain ?? defaultDomain(live),
            name: `Staging of ${live.domain}`.slice(0, 100),
            ...(body.nodeId === undefined ? {} : { nodeId: body.nodeId }),
            details: { stagingOf: live.id },
            onPluginDomain: true,
          },
          { enqueueJob, audit },
        )
        const input: CreateInput = { liveSiteId: live.id, stagingSiteId: site.id }
        const jobId = await enqueueJob(trx, {
          kind: createJobKind,
          customerId: live.customerId,
          subject: { type: 'site', id: site.id },
          input: { ...input },
        })
        await copies.request(trx, jobId, live, null)
        await stagingTables(trx)
          .insertInto('staging_sites')
          .values({
            staging_site_id: site.id,
            live_site_id: live.id,
            customer_id: live.customerId,
            status: 'copying',
            job_id: jobId,
            error_code: null,
            error_message: null,
            last_push_json: null,
            created_at: nowIso(),
          })
          .execute()
          .catch(async (error: unknown) => {
            // Another request made the live site's staging copy meanwhile (the unique live site): the same refusal.
            if (/unique|duplicate/i.test(String(error))) throw new Problem(stagingProblems.staging_exists)
            throw error
          })
        const row = orNotFound(await stagingOf(trx, site.id))
        return recorded(
          { jobId, site, staging: await toStaging(trx, sites, row) },
          { customerId: live.customerId },
        )
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/staging',
      operationId: 'getStaging',
      summary: 'Read a staging copy',
      description:
        'The staging copy the site has (called on the live site) or is (called on the staging site): both sites, its status and its latest push with its `undo`. 404 `staging_not_found` when the site has none and is none.',
      scope: stagingScopes.read,
      params: { id: 'site' },
      responses: { 200: { description: 'The staging copy.', schema: Staging } },
      problems: [stagingProblems.staging_not_found],
      async handler({ db, params, view }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        const row = await stagingOf(db, site.id)
        if (!row) throw new Problem(stagingProblems.staging_not_found)
        return toStaging(db, sites, row)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/push',
      operationId: 'pushStaging',
      summary: 'Push a staging copy to live',
      description:
        'Called on the staging site: a `staging.push` job takes a backup of the staging site and a `pre-restore` backup of the live site, then restores into the live site the chosen `files` (all, or paths within `/htdocs`) and `tables` (the whole database, or the listed tables, each replacing its namesake), keeping the live site’s own `wp-config.php` and whether search engines index it, and moving the staging URL back to the live one. The job’s result names `undo`: the one call (a restore of the pre-restore backup) that puts the live site back. One backup, restore or push of either site at a time (409 `backup_in_progress`). `site.pushed` when it is done.',
      scope: stagingScopes.manage,
      params: { id: 'site' },
      body: PushRequest,
      idempotent: true,
      responses: { 202: { description: 'The push started: follow its job.', schema: PushAccepted } },
      problems: [
        stagingProblems.not_a_staging_site,
        stagingProblems.staging_not_ready,
        stagingProblems.nothing_to_push,
        stagingProblems.invalid_push_path,
        stagingProblems.invalid_table_name,
        ...siteCopyProblems,
        ...runningSiteProblems,
        nodeUnavailable,
      ],
      change: {
        action: 'staging.push',
        subject: (answer) => ({ type: 'site', id: String(answer.stagingSiteId) }),
        details: ({ staging: _staging, ...details }) => details,
      },
      async handler({ trx, params, body, view, enqueueJob }) {
        const staging = orNotFound(await sites.find(trx, view, params.id))
        const row = await stagingOf(trx, staging.id)
        if (!row || row.staging_site_id !== staging.id) throw new Problem(stagingProblems.not_a_staging_site)
        const files = body.files ?? false
        const tables = body.tables ?? false
        if (files === false && tables === false) throw new Problem(stagingProblems.nothing_to_push)
        const refusals = new FieldErrors()
        let paths: boolean | string[] = files
        if (Array.isArray(files)) {
          paths = []
          files.forEach((path, index) => {
            const normal = pushPath(path)
            if (normal === null) refusals.add(stagingProblems.invalid_push_path, `body.files[${index}]`)
            else (paths as string[]).push(normal)
          })
        }
        if (Array.isArray(tables))
          tables.forEach((name, index) => {
            if (!tableName.test(name))
              refusals.add(stagingProblems.invalid_table_name, `body.tables[${index}]`)
          })
        if (refusals.hasAny()) throw refusals.toProblem()
        if (row.status !== 'ready')
          throw new Problem(stagingProblems.staging_not_ready, { extensions: { stagingStatus: row.status } })
        const live = orNotFound(await sites.find(trx, view, row.live_site_id))
        await requireCopyable(trx, staging)
        await requireCopyable(trx, live)
        const input: PushInput = {
          liveSiteId: live.id,
          stagingSiteId: staging.id,
          files: paths,
          tables: Array.isArray(tables) ? [...new Set(tables)] : tables,
        }
        const jobId = await enqueueJob(trx, {
          kind: pushJobKind,
          customerId: live.customerId,
          subject: { type: 'site', id: live.id },
          input: { ...input },
        })
        const { preRestoreBackupId } = await copies.request(trx, jobId, staging, live)
        const push: StagingPush = {
          jobId,
          status: 'running',
          files: input.files as boolean | string[],
          tables: input.tables as boolean | string[],
          preRestoreBackupId: preRestoreBackupId ?? '',
          undo: null,
          startedAt: nowIso(),
          finishedAt: null,
        }
        await updateStaging(trx, staging.id, { last_push_json: JSON.stringify(push) })
        const updated = orNotFound(await stagingOf(trx, staging.id))
        return recorded(
          {
            jobId,
            liveSiteId: live.id,
            stagingSiteId: staging.id,
            preRestoreBackupId: push.preRestoreBackupId,
            staging: await toStaging(trx, sites, updated),
          },
          { customerId: live.customerId },
        )
      },
    }),
  ]
}
