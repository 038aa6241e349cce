// What the panel and the `sftp` node service say to each other about a site's SFTP accounts (JSON both ways),
// read by both sides; nothing of the panel's kernel.

/** The node service's name. */
export const sftpServiceName = 'sftp'

/** An account as the node keeps it: what it needs to authenticate a login on its own. */
export interface SftpNodeAccount {
  readonly id: string
  readonly username: string
  readonly siteId: string
  /** An Argon2id hash (`$argon2id$…`, Bun.password), or null when no password logs in. */
  readonly passwordHash: string | null
  /** OpenSSH public keys, `<type> <base64>` (no comment). */
  readonly publicKeys: readonly string[]
  readonly readOnly: boolean
  /** ISO 8601; null for never. */
  readonly expiresAt: string | null
}

/**
 * What the panel asks the `sftp` node service about a site: put (create or replace) an account of the site, remove
 * one, or say where the server listens. Putting changed credentials or removing ends the account's live sessions.
 */
export type SftpNodeRequest =
  | { readonly op: 'put'; readonly account: SftpNodeAccount }
  | { readonly op: 'remove'; readonly accountId: string }
  | { readonly op: 'info' }

/** The node's answer to `put` and `info`: where its SFTP server listens and the fingerprints of its host keys. */
export interface SftpNodeInfo {
  readonly port: number
  readonly hostKeyFingerprints: readonly string[]
}

/** The node's answer to `remove`. */
export interface SftpNodeRemoved {
  readonly removed: boolean
  /** Live sessions of the account the removal ended. */
  readonly sessionsEnded: number
}
