// The SFTP plugin's public contract: an SFTP account as the API shows it, and what the panel asks the `sftp` node
// service (the node keeps its accounts and authenticates logins without asking the panel).

import { type Static, t } from '../../core/index.ts'

/** The name of the node service the panel pushes accounts to. */
export const sftpServiceName = 'sftp'

/** An SSH public key of an account, as the API shows it. */
export const SftpPublicKey = t.Object(
  {
    type: t.String({
      description: 'The key type: `ssh-ed25519`, `ecdsa-sha2-nistp256`/`384`/`521` or `ssh-rsa`.',
    }),
    fingerprint: t.String({ description: 'SHA-256 fingerprint as OpenSSH prints it, `SHA256:…`.' }),
    comment: t.String({ description: 'The comment after the key, as given (may be empty).' }),
  },
  { $id: 'SftpPublicKey' },
)

/** An SFTP account of a site, as the API returns it. */
export const SftpUser = t.Object(
  {
    id: t.String({ description: 'Identifier, `sftpu_…`.' }),
    siteId: t.String({ description: 'The site whose files it reaches, `site_…`.' }),
    customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
    username: t.String({
      description:
        'The login: the site’s handle, `.` and the account’s name (`my-shop.deploy`); unique on the node.',
    }),
    passwordEnabled: t.Boolean({
      description:
        'Whether a password logs in. The panel keeps no password (the node keeps an Argon2id hash); it is shown only when created or rotated.',
    }),
    publicKeys: t.Array(SftpPublicKey, { description: 'The SSH public keys that log in.' }),
    readOnly: t.Boolean({ description: 'Whether the account may only read: every write is refused.' }),
    expiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'After this time the node refuses logins and ends live sessions; null for never.',
    }),
    host: t.String({ description: 'Where to connect: the host name of the site’s node.' }),
    port: t.Integer({ description: 'The node’s SFTP port (`SFTP_PORT`).' }),
    hostKeyFingerprints: t.Array(t.String(), {
      description:
        'SHA-256 fingerprints of the node’s SSH host keys as OpenSSH prints them (`SHA256:…`): compare with what your client shows on first connecting.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'SftpUser' },
)
export type SftpUser = Static<typeof SftpUser>

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
