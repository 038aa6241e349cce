// The staging plugin's public contract: a site's staging copy as the API shows it, what a push to live takes and
// answers, the scopes and events it declares. docs/staging.md describes the whole.

import { type Static, t } from '../../core/index.ts'

/** Scope names the plugin declares. */
export const stagingScopes = {
  /** A customer's: read its sites' staging copies and their pushes. */
  read: 'staging:read',
  /** A customer's: make staging copies and push them to live. */
  manage: 'staging:manage',
} as const

export const stagingStatuses = ['copying', 'ready', 'failed'] as const

/** The call that undoes a push: a restore of the live site's pre-restore backup (the backups plugin's). */
export const UndoCall = t.Object(
  {
    method: t.Literal('POST'),
    path: t.String({ description: '`/api/v1/sites/{liveSiteId}/backups/{preRestoreBackupId}/restore`' }),
    body: t.Object({
      files: t.Union([t.Boolean(), t.Array(t.String())]),
      databases: t.Union([t.Literal(false), t.Array(t.String())]),
    }),
  },
  { $id: 'StagingUndoCall' },
)

/** A push to live, as the staging copy keeps its last one. */
export const StagingPush = t.Object(
  {
    jobId: t.String({ description: 'The `staging.push` job.' }),
    status: t.Union([t.Literal('running'), t.Literal('succeeded'), t.Literal('failed')]),
    files: t.Union([t.Boolean(), t.Array(t.String())], { description: 'The files pushed.' }),
    tables: t.Union([t.Boolean(), t.Array(t.String())], { description: 'The tables pushed.' }),
    preRestoreBackupId: t.String({
      description: 'The live site’s backup taken before the push: restoring it undoes the push.',
    }),
    undo: t.Union([UndoCall, t.Null()], {
      description: 'Once the push succeeded: the one call that puts the live site back as it was before it.',
    }),
    startedAt: t.String({ format: 'date-time' }),
    finishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { $id: 'StagingPush' },
)
export type StagingPush = Static<typeof StagingPush>

/** A live site's staging copy, the same seen from either site. */
export const Staging = t.Object(
  {
    liveSiteId: t.String({ description: 'The live site (`site_…`).' }),
    liveDomain: t.String(),
    stagingSiteId: t.String({ description: 'Its staging copy, a site of its own (`site_…`).' }),
    stagingDomain: t.String(),
    customerId: t.String(),
    status: t.Union(
      stagingStatuses.map((status) => t.Literal(status)),
      {
        description:
          '`copying` while the live site is backed up and restored into the staging site; `ready` once it serves the copy; `failed` when the copy failed (`error`): delete the staging site and make another.',
      },
    ),
    jobId: t.String({ description: 'The `staging.create` job that made the copy.' }),
    error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()]),
    lastPush: t.Union([StagingPush, t.Null()], { description: 'The latest push to live, or null.' }),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Staging' },
)
export type Staging = Static<typeof Staging>

/** The body of `POST /sites/{id}/push`. */
export const PushRequest = t.Object(
  {
    files: t.Optional(
      t.Union(
        [t.Boolean(), t.Array(t.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 100 })],
        {
          description:
            '`true`: the live site’s files become the staging site’s (but what its type keeps of its own: WordPress’s `wp-config.php`); a list of paths as the files API names them (`/htdocs/wp-content/themes/shop`): each becomes the staging site’s; `false` or absent: files are left.',
        },
      ),
    ),
    tables: t.Optional(
      t.Union(
        [t.Boolean(), t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000 })],
        {
          description:
            '`true`: the live site’s database becomes the staging site’s; a list of table names (`wp_posts`, `wp_postmeta`): each replaces its namesake, the others are left (MariaDB); `false` or absent: the database is left.',
        },
      ),
    ),
  },
  { $id: 'PushRequest' },
)
export type PushRequest = Static<typeof PushRequest>

/** What `site.pushed` carries: the staging copy, its push just done. */
export const PushedStaging = t.Object({ ...Staging.properties }, { $id: 'PushedStaging' })
