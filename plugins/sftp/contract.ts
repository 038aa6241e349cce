// The SFTP plugin's public contract: an SFTP account as the API shows it, and what the panel asks the `sftp` node
// service (the node keeps its accounts and authenticates logins without asking the panel).

import { type Static, t } from '../../core/index.ts'

/** What the panel and the `sftp` node service say to each other. */
export {
  type SftpNodeAccount,
  type SftpNodeInfo,
  type SftpNodeRemoved,
  type SftpNodeRequest,
  sftpServiceName,
} from './node/protocol.ts'

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
