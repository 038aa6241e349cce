// What the panel and the `backups` node service say to each other (JSON both ways), read by both sides and nothing of
// the panel's kernel. A site's backups live in a restic repository of its own on a target (the node's own disk, an
// SFTP server, a restic REST server, an S3-compatible store); the panel holds each repository's password sealed and
// hands it to the node only inside a request, which the node never writes to the site's reach nor logs.
//
// Backups, restores and archives take minutes: `run.start` starts one and answers at once with its id; the panel
// reads its progress and outcome with `run.read` (repeatable) and may `run.cancel` it, as exec's commands are read.

/** The node service's name. */
export const backupsServiceName = 'backups'

/**
 * Where a site's repository is, as the node reaches it. `local`: under the node's own data directory
 * (`<node data>/services/backups/repositories/<name>`), root's only. The other kinds carry the credentials the node
 * writes with: for `rest` and `s3`, ideally ones that cannot delete (a REST server's append-only user, an S3 key
 * without `DeleteObject`), since pruning runs where the panel says with the target's own.
 */
export type RepositoryLocation =
  | { readonly kind: 'local'; readonly name: string }
  | {
      readonly kind: 'sftp'
      readonly host: string
      readonly port: number
      readonly username: string
      /** The repository's path on the server (absolute, or relative to the login's home). */
      readonly path: string
      /** The login's private key, OpenSSH PEM: written 0600 to a folder of root's for the run, removed after. */
      readonly privateKey: string
      /** The server's host keys as `known_hosts` lines (`[host]:port ssh-ed25519 AAAA…`): nothing else is trusted. */
      readonly knownHosts: string
    }
  | {
      readonly kind: 'rest'
      /** The server and the repository's path on it: `https://backup.example.net:8000/site_01…/`. */
      readonly url: string
      readonly username: string | null
      readonly password: string | null
    }
  | {
      readonly kind: 's3'
      /** The endpoint's URL: `https://s3.eu-central-1.amazonaws.com`, `http://127.0.0.1:9000`. */
      readonly endpoint: string
      readonly bucket: string
      /** The repository's key prefix in the bucket: `plinth/site_01…`. */
      readonly prefix: string
      readonly region: string | null
      readonly accessKeyId: string
      readonly secretAccessKey: string
    }

/** A site's repository: where it is and the password that opens it (restic's `RESTIC_PASSWORD`). */
export interface RepositorySpec {
  readonly location: RepositoryLocation
  readonly password: string
}

/**
 * A login to one database for the length of a run (made by the panel for it and dropped after): the node connects
 * with it from its own addresses, so `host` and `port` are as the node reaches the server.
 */
export interface DatabaseLogin {
  readonly engine: 'mariadb' | 'postgresql'
  readonly host: string
  readonly port: number
  /** The database's real name on its server. */
  readonly database: string
  readonly username: string
  readonly password: string
}

/** One database a backup dumps: `--single-transaction` for MariaDB, `pg_dump` for PostgreSQL. */
export interface DumpSource {
  /** The panel's id (`db_…`): the dump's name in the snapshot is `databases/<databaseId>.sql`. */
  readonly databaseId: string
  /** A login that reads the database. */
  readonly login: DatabaseLogin
  /**
   * A login to an empty scratch database on the same server, which the test restore of the dump loads into (its
   * tables counted against the source's); the panel drops it after the run.
   */
  readonly scratch: DatabaseLogin
}

/** One database a restore loads: the dump of `databaseId` in the snapshot, into the database `into` opens. */
export interface DumpTarget {
  readonly databaseId: string
  /** A login that may drop and create the tables of the database the dump is loaded into. */
  readonly into: DatabaseLogin
  /**
   * Only these tables (and views) of the dump are loaded, each replacing its namesake whole, the database's others
   * left as they are (MariaDB only; a listed table the dump lacks fails the run with `not_in_backup` before anything
   * changed). Absent: the database is emptied and the whole dump loaded.
   */
  readonly tables?: readonly string[]
}

/** How much of a backup is checked after it is taken. */
export interface VerifyPlan {
  /** restic's `check --read-data-subset`: the percent of the repository's data read back and checked (1 to 100). */
  readonly readDataPercent: number
  /** Files of the snapshot restored to a scratch folder and compared with their checksums at backup time. */
  readonly sampleFiles: number
}

/** The tasks a run carries out. */
export type BackupTask =
  | {
      readonly task: 'backup'
      /** The panel's backup id (`bkp_…`): the snapshot's tag. */
      readonly backupId: string
      readonly repository: RepositorySpec
      /** Whether the site's files go in (its home but `tmp/` and the runtime's own files). */
      readonly files: boolean
      readonly databases: readonly DumpSource[]
      /** The panel's record of the site (type, domain, settings, certificate, SFTP accounts): `record.json`. */
      readonly record: Readonly<Record<string, unknown>>
      readonly verify: VerifyPlan
    }
  | {
      readonly task: 'restore'
      readonly repository: RepositorySpec
      /** The snapshot (restic's id). */
      readonly snapshotId: string
      /**
       * The site's files: `true` makes the site's home (but `tmp/` and the runtime's files) exactly the snapshot's;
       * a list of paths (as the files API names them: `/htdocs/wp-content/uploads`) makes each of them exactly the
       * snapshot's (a listed path the snapshot lacks fails the run with `not_in_backup` before anything changed); `false` leaves them.
       */
      readonly files: boolean | readonly string[]
      /**
       * Paths left as the site has them whatever `files` says (a clone keeps its own `/htdocs/wp-config.php`, which
       * names its own database).
       */
      readonly keep: readonly string[]
      readonly databases: readonly DumpTarget[]
    }
  | {
      readonly task: 'forget'
      readonly repository: RepositorySpec
      /** Snapshots to remove (restic's ids); their data is pruned after. */
      readonly snapshotIds: readonly string[]
    }
  | {
      readonly task: 'archive'
      readonly repository: RepositorySpec
      readonly snapshotId: string
    }

/** Requests of the `backups` node service. */
export type BackupsServiceRequest =
  | { readonly op: 'run.start'; readonly run: BackupTask }
  | { readonly op: 'run.read'; readonly runId: string; readonly waitMs: number }
  | { readonly op: 'run.cancel'; readonly runId: string }
  /** A piece of a finished archive run's `.tar.gz`, base64 in the answer (at most 4 MiB: an agent's answer is 8). */
  | {
      readonly op: 'archive.read'
      readonly archiveId: string
      readonly offset: number
      readonly length: number
    }
  | { readonly op: 'archive.drop'; readonly archiveId: string }

/**
 * Requests of the service about the node itself rather than one of its sites (the site may be gone): a deleted
 * site's `local` repository removed from the node's disk. Answers `{ dropped }`, whether there was one.
 */
export type BackupsNodeRequest = { readonly op: 'repository.drop'; readonly name: string }

/** The answer of `run.start`. */
export interface RunStarted {
  readonly runId: string
}

/** The answer of `run.read`: where the run is, and how it ended once it has. */
export interface RunRead {
  /** 0 to 100. */
  readonly progress: number
  /** What it does now, in words (`dumping db_01…`, `uploading`, `checking`). */
  readonly step: string
  readonly outcome: RunOutcome | null
}

/** What a database held, as the backup's dump and its test restore counted it. */
export interface DumpedDatabase {
  readonly databaseId: string
  /** Bytes of its dump. */
  readonly bytes: number
  /** Tables in the source when dumped. */
  readonly tables: number
  /** Tables in the scratch database after the test restore (equal to `tables`, or the backup failed). */
  readonly restoredTables: number
}

/** How a run ended. */
export type RunOutcome =
  | {
      readonly ok: true
      readonly task: 'backup'
      readonly snapshotId: string
      /** Bytes of the site's files and dumps in the snapshot. */
      readonly sizeBytes: number
      /** Bytes the snapshot added to the repository (after deduplication and compression). */
      readonly storedBytes: number
      /** Bytes the whole repository takes after it. */
      readonly repositoryBytes: number
      readonly files: { readonly count: number; readonly bytes: number } | null
      readonly databases: readonly DumpedDatabase[]
      readonly checks: {
        /** restic's own check, with the percent of data read. */
        readonly repository: { readonly readDataPercent: number }
        /** Files restored from the snapshot and compared by SHA-256. */
        readonly files: { readonly sampled: number; readonly matched: number }
      }
    }
  | {
      readonly ok: true
      readonly task: 'restore'
      readonly files: number
      readonly databases: readonly string[]
    }
  | { readonly ok: true; readonly task: 'forget'; readonly repositoryBytes: number }
  | { readonly ok: true; readonly task: 'archive'; readonly archiveId: string; readonly bytes: number }
  | {
      readonly ok: false
      /**
       * A stable code: `repository_unreachable` (the target refused or could not be reached), `repository_corrupt`
       * (restic's check failed), `dump_failed` (a database dump failed or came out empty), `verify_failed` (a test
       * restore differed), `snapshot_missing`, `restore_failed`, `not_in_backup` (a restore's listed path the snapshot lacks), `disk_quota_exceeded`, `cancelled`, `failed`.
       */
      readonly code: string
      /** Why, for people: names site paths and database ids, never the node's own paths or a secret. */
      readonly message: string
    }

/** The answer of `archive.read`. */
export interface ArchiveChunk {
  /** Base64 of the bytes; empty at the end. */
  readonly data: string
  readonly totalBytes: number
}
