// The backups plugin's public contract: backups and targets as the API shows them, the scopes and events it declares,
// and the extension point site types use to say what a restore into another site keeps and does after (WordPress
// keeps its own wp-config.php and moves its URLs). docs/backups.md describes the whole.

import {
  type Db,
  defineExtensionPoint,
  defineService,
  enumOf,
  type JobRun,
  type Static,
  type Trx,
  t,
} from '../../core/index.ts'
import type { SiteRef } from '../sites/contract.ts'
import { backupsProblems } from './problems.ts'
import type { UndoCall } from './restore-undo.ts'

export {
  type BackupsServiceRequest,
  type BackupTask,
  backupsServiceName,
  type DatabaseLogin,
  type RepositoryLocation,
  type RepositorySpec,
  type RunOutcome,
  type RunRead,
} from './node/protocol.ts'
export type { UndoCall } from './restore-undo.ts'

/** Scope names the plugin declares. */
export const backupScopes = {
  /** A customer's: its sites' backups and their policy. */
  read: 'backup:read',
  /** A customer's: take, restore, download backups. */
  manage: 'backup:manage',
  /** Staff: backup targets. */
  targetRead: 'backup-target:read',
  targetManage: 'backup-target:manage',
  /** Staff: a site's own policy over its plan's, and the list of sites whose last good backup is overdue. */
  policyManage: 'backup-policy:manage',
} as const

export const backupStatuses = ['running', 'completed', 'failed'] as const
/** Why a backup was taken. */
export const backupReasons = ['manual', 'scheduled', 'pre-restore'] as const
export const targetKinds = ['local', 'sftp', 'rest', 's3'] as const
export type TargetKind = (typeof targetKinds)[number]
export const scheduleKinds = ['off', 'daily', 'weekly'] as const
export type ScheduleKind = (typeof scheduleKinds)[number]

/** What a backup holds. */
export const BackupContents = t.Object(
  {
    files: t.Union(
      [
        t.Object({
          count: t.Integer({ minimum: 0, description: 'Files (and links) of the site in it.' }),
          bytes: t.Integer({ minimum: 0, description: 'Their bytes.' }),
        }),
        t.Null(),
      ],
      { description: 'The site’s files (its home but `/tmp`), or null when the backup holds none.' },
    ),
    databases: t.Array(
      t.Object({
        databaseId: t.String({ description: 'The database (`db_…`); it may have been deleted since.' }),
        name: t.String({ description: 'Its real name on its server when it was backed up.' }),
        engine: t.Union([t.Literal('mariadb'), t.Literal('postgresql')]),
        bytes: t.Integer({ minimum: 0, description: 'Bytes of its dump.' }),
        tables: t.Integer({ minimum: 0, description: 'Tables it held (and its test restore held too).' }),
      }),
      { maxItems: 1000, description: 'The site’s databases, each a consistent dump.' },
    ),
    record: t.Boolean({
      description:
        'Whether the panel’s record of the site (type, domain, certificate attachment, SFTP accounts) is in it.',
    }),
  },
  { $id: 'BackupContents' },
)
export type BackupContents = Static<typeof BackupContents>

/** A backup of a site, as the API shows it. */
export const Backup = t.Object(
  {
    id: t.String({ description: '`bkp_…`' }),
    siteId: t.String(),
    customerId: t.String(),
    targetId: t.String({ description: 'The target its repository is on (`bkt_…`).' }),
    status: enumOf(backupStatuses, {
      description:
        '`running` while it is taken and checked; `completed` once restic’s check, the test restore of every database dump and the sampled files all passed; `failed` otherwise (`error` says why).',
    }),
    reason: enumOf(backupReasons, {
      description:
        '`manual` (asked for), `scheduled` (the site’s policy), `pre-restore` (what a restore replaced, taken before it: restore it to undo the restore).',
    }),
    verified: t.Boolean({ description: 'Whether every check after it passed (true only when `completed`).' }),
    sizeBytes: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description: 'Bytes of the site’s files and dumps it holds; null while running or when it failed.',
    }),
    storedBytes: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description:
        'Bytes it added to the repository (deduplicated, compressed); null while running or when it failed.',
    }),
    contents: t.Union([BackupContents, t.Null()], { description: 'What it holds; null until it completed.' }),
    jobId: t.Union([t.String(), t.Null()], { description: 'The job that takes it (`job_…`).' }),
    error: t.Union(
      [
        t.Object({
          code: t.String({
            description:
              'A stable code: `repository_unreachable`, `repository_corrupt`, `dump_failed`, `verify_failed`, `backup_limit_reached`, `node_unreachable`, `failed`, …',
          }),
          message: t.String(),
        }),
        t.Null(),
      ],
      { description: 'Why it failed; null otherwise.' },
    ),
    createdAt: t.String({ format: 'date-time' }),
    finishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { $id: 'Backup' },
)
export type Backup = Static<typeof Backup>

/** The body of `POST /sites/{id}/backups/{backupId}/restore`. */
export const RestoreRequest = t.Object(
  {
    files: t.Optional(
      t.Union(
        [t.Boolean(), t.Array(t.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 100 })],
        {
          description:
            '`true`: the site’s files become exactly the backup’s; a list of paths as the files API names them (`/htdocs/wp-content/uploads`): each becomes exactly the backup’s; `false` or absent: files are left.',
        },
      ),
    ),
    databases: t.Optional(
      t.Union([t.Boolean(), t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: 100 })], {
        description:
          '`true`: every database in the backup is loaded back; a list of database ids: those; `false` or absent: none.',
      }),
    ),
    into: t.Optional(
      t.Object(
        {
          newSite: t.Object({
            domain: t.String({ maxLength: 253, description: 'The new site’s domain.' }),
            nodeId: t.Optional(
              t.String({
                maxLength: 64,
                description: 'The node it goes on; default: placed as any new site.',
              }),
            ),
          }),
        },
        {
          description:
            'Restore into a new site (a clone) of the same customer and type instead of the backup’s own site.',
        },
      ),
    ),
  },
  { $id: 'RestoreRequest' },
)
export type RestoreRequest = Static<typeof RestoreRequest>

/** A site's backup policy: its plan's, or staff's for the site. */
export const BackupPolicy = t.Object(
  {
    schedule: enumOf(scheduleKinds, {
      description:
        '`daily` or `weekly` scheduled backups (at a time of night the panel spreads sites over), or `off`.',
    }),
    keepDaily: t.Integer({ minimum: 0, maximum: 366, description: 'Days whose last backup is kept.' }),
    keepWeekly: t.Integer({ minimum: 0, maximum: 520, description: 'Weeks whose last backup is kept.' }),
    keepMonthly: t.Integer({ minimum: 0, maximum: 240, description: 'Months whose last backup is kept.' }),
  },
  { $id: 'BackupPolicy' },
)
export type BackupPolicy = Static<typeof BackupPolicy>

/** A backup target as the API shows it: never a password or a key. */
export const BackupTarget = t.Object(
  {
    id: t.String({ description: '`bkt_…`' }),
    name: t.String(),
    kind: enumOf(targetKinds, {
      description:
        '`local`: a repository on each site’s own node (not offsite: a lost node loses it); `sftp`: an SFTP server; `rest`: a restic REST server; `s3`: an S3-compatible store.',
    }),
    default: t.Boolean({ description: 'Whether sites without a target of their own back up to it.' }),
    pushOnly: t.Boolean({
      description:
        'Whether nodes hold only credentials that cannot delete snapshots (a REST or S3 target given separate prune credentials): pruning then runs on the panel with the target’s own.',
    }),
    location: t.Record(t.String(), t.Union([t.String(), t.Integer(), t.Null()]), {
      description:
        'Where it is, without secrets: `{ host, port, username, path, hostKeyFingerprint }` (sftp), `{ url, username }` (rest), `{ endpoint, bucket, prefix, region, accessKeyId }` (s3), `{}` (local).',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'BackupTarget' },
)
export type BackupTarget = Static<typeof BackupTarget>

/**
 * What a site type does about a restore into another site of its type (a clone): paths the new site keeps of its own
 * (WordPress's `wp-config.php`, which names the new site's database), and work after the restore (WordPress's URLs
 * moved from the old domain to the new). Declared by the plugin that adds the type.
 */
export interface RestoreAdapter {
  /** The site type (`wordpress`). */
  readonly type: string
  /** Paths as the files API names them that a clone keeps of its own (`/htdocs/wp-config.php`). */
  readonly keepOnClone: readonly string[]
  /**
   * The clone's database a source database's dump is loaded into (`null`: none: the dump is not loaded), by the
   * source's id: WordPress maps the old site's own database to the new site's own.
   */
  databaseFor(job: JobRun, from: ClonedSite, to: ClonedSite, sourceDatabaseId: string): Promise<string | null>
  /** After files and databases are restored into the clone: what the new domain needs (a search-replace). */
  cloned?(job: JobRun, from: ClonedSite, to: ClonedSite): Promise<void>
  /**
   * Before a copy between two sites ({@link SiteCopies}) replaces what `into` has: what of it must outlive the copy,
   * handed to `copied` (WordPress: whether search engines may index the live site a staging copy is pushed to).
   */
  beforeCopy?(job: JobRun, into: ClonedSite, purpose: CopyPurpose): Promise<unknown>
  /**
   * After a copy's files, databases and `cloned`: a staging copy made what a staging copy is (WordPress: not indexed
   * by search engines), a site pushed to given back what `beforeCopy` kept.
   */
  copied?(
    job: JobRun,
    from: ClonedSite,
    into: ClonedSite,
    purpose: CopyPurpose,
    before: unknown,
  ): Promise<void>
}

/** Why a site is copied into another: a new staging copy of it, or a staging copy pushed to its live site. */
export type CopyPurpose = 'staging' | 'push'

/** A site at either end of a clone. */
export interface ClonedSite {
  readonly id: string
  readonly customerId: string
  readonly domain: string
  readonly nodeId: string | null
}

/** The registry of restore adapters, keyed by site type. */
export const restoreAdapters = defineExtensionPoint<RestoreAdapter>({
  id: 'backups.restoreAdapters',
  owner: 'backups',
  description: 'What a restore into a new site of a type keeps of its own and does after (WordPress).',
  keyOf: (adapter) => adapter.type,
})

/**
 * A part of the panel's record of a site that every backup keeps (`record.json` in the snapshot): what another plugin
 * holds of the site (its SFTP accounts, its certificate attachment), JSON without a secret, so a person or a rebuilt
 * panel knows what the site had. Declared by the plugin that holds it.
 */
export interface SiteRecordPart {
  /** The member of the record it fills (`sftpAccounts`, `certificate`): unique. */
  readonly name: string
  /** What the plugin holds of the site now, read through `db`; null when nothing. Never a password or a key. */
  read(db: Db, siteId: string): Promise<unknown>
}

/** The registry of the record's parts, keyed by name. */
export const siteRecordParts = defineExtensionPoint<SiteRecordPart>({
  id: 'backups.siteRecordParts',
  owner: 'backups',
  description:
    'What other plugins hold of a site (SFTP accounts, its certificate), kept in every backup’s record.',
  keyOf: (part) => part.name,
})

/** A copy of a site into another of its customer and type, as {@link SiteCopies.run} makes it. */
export interface SiteCopyPlan {
  readonly fromSiteId: string
  readonly intoSiteId: string
  /** `true`: every file (but what the type keeps of its own); paths as the files API names them; `false`: none. */
  readonly files: boolean | readonly string[]
  /** Whether the databases the type maps (WordPress: its own) are copied. */
  readonly databases: boolean
  /** Only these tables of each copied database (MariaDB), each replacing its namesake; null: whole databases. */
  readonly tables: readonly string[] | null
  readonly purpose: CopyPurpose
}

/** What a copy did, and how to undo it. */
export interface SiteCopyResult {
  readonly sourceBackupId: string
  readonly preRestoreBackupId: string | null
  readonly files: boolean | readonly string[]
  /** The databases of `into` loaded (ids). */
  readonly databases: readonly string[]
  readonly tables: readonly string[] | null
  /** The restore that puts `into` back as it was before the copy; null for a new site. */
  readonly undo: UndoCall | null
}

/**
 * Copies one site into another through a fresh backup (staging copies and their push to live): the backups plugin
 * takes the backup, and the pre-restore backup of a site replaced, and restores into the other site as a clone is
 * (what its type keeps of its own kept, the databases its type maps, the domain moved by its restore adapter).
 */
export interface SiteCopies {
  /**
   * In the caller's transaction, with the job (`jobId`) that will {@link run} the copy: the backup of `from`, and for
   * a `push` the pre-restore backup of `into`, asked for (rows `running`, taken by that job). Refused 409
   * `backup_in_progress` while a backup or restore of either runs, 422 `backup_limit_reached` past the customer's
   * `backupMB` (list {@link siteCopyProblems}).
   */
  request(
    trx: Trx,
    jobId: string,
    from: SiteRef,
    into: SiteRef | null,
  ): Promise<{ readonly sourceBackupId: string; readonly preRestoreBackupId: string | null }>
  /**
   * In that job: takes the backups {@link request} asked for with it, then copies; progress 0 to 95 in the job. A
   * failure throws a `JobFailure`.
   */
  run(job: JobRun, plan: SiteCopyPlan): Promise<SiteCopyResult>
  /** In the job's `onGivenUp`: the backups it had not finished fail with it. */
  givenUp(trx: Trx, job: JobRun, error: { readonly code: string; readonly message: string }): Promise<void>
}

/** The refusals of {@link SiteCopies.request}. */
export const siteCopyProblems = [
  backupsProblems.backup_in_progress,
  backupsProblems.backup_limit_reached,
] as const

/** The backups plugin's copies of one site into another. */
export const siteCopies = defineService<SiteCopies>({
  id: 'backups.siteCopies',
  owner: 'backups',
  description:
    'Copies a site into another through a fresh backup (staging copies, push to live), with an undo.',
})
