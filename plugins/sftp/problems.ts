// Refusals of the SFTP plugin.

import { defineProblems } from '../../core/index.ts'

/** The SFTP plugin's problem codes, catalogued in docs/problem-codes.md. */
export const sftpProblems = defineProblems({
  invalid_public_key: {
    status: 422,
    detail: 'A public key is not an accepted SSH public key.',
    description:
      'Each of `publicKeys` is one line as `ssh-keygen` writes it (`ssh-ed25519 AAAA… comment`): Ed25519, ECDSA (nistp256/384/521) or RSA of at least 2048 bits; DSA, certificates and security-key types are refused. The error at `body.publicKeys.N` says why.',
  },
  invalid_sftp_name: {
    status: 422,
    detail:
      'An SFTP account name is 1 to 32 lower-case letters, digits and hyphens, starting with a letter or digit.',
    description:
      '`name` must match `^[a-z0-9][a-z0-9-]{0,31}$`; the login is the site’s handle, `.` and the name.',
  },
  sftp_credentials_required: {
    status: 422,
    detail: 'An SFTP account needs a password or at least one public key.',
    description: '`password: false` is only accepted with `publicKeys`.',
  },
  invalid_expiry: {
    status: 422,
    detail: 'The expiry is not in the future.',
    description:
      '`expiresAt` must be a time after now (ISO 8601), or null for an account that never expires.',
  },
  sftp_username_taken: {
    status: 409,
    detail: 'The site already has an SFTP account of that name.',
    description: 'Logins are unique on the node: choose another `name`, or delete the other account first.',
  },
  sftp_unavailable: {
    status: 409,
    detail: 'The site’s node runs no SFTP server.',
    description:
      'The node’s operator has not set `SFTP_PORT` (docs/operators.md), or its SSH server could not start (bubblewrap or sftp-server missing; the node’s log says which).',
  },
  sftp_node_unreachable: {
    status: 503,
    detail: 'The site’s node did not answer; nothing was changed.',
    description:
      'The node’s agent is not connected or did not answer within 30 seconds. Accounts live on the node, so the panel changes none it could not tell the node about: try again once the node is back.',
  },
})
