// Refusals of the backup targets' staff area (the plugin's problems include them: docs/problem-codes.md).

import { defineProblems } from '../../../core/index.ts'

/** The backup targets' problem codes. */
export const targetProblems = defineProblems({
  backup_target_name_taken: {
    status: 409,
    detail: 'Another backup target already has this name.',
    description: 'Target names are unique in the installation.',
  },
  backup_target_in_use: {
    status: 409,
    detail: 'Sites’ repositories or policies are on the backup target.',
    description:
      'A target is forgotten only once no site has a repository on it and no site’s policy names it (`blockers` says how many of each): move those sites to another target and remove their repositories first.',
  },
  backup_target_is_default: {
    status: 409,
    detail: 'The default backup target cannot be deleted.',
    description:
      'Sites without a target of their own back up to the default: make another target the default (`PATCH /backup-targets/{id}` with `default: true`) first.',
  },
  backup_target_kind_fields: {
    status: 422,
    detail: 'A field does not belong to the target’s kind, or one it needs is missing.',
    description:
      '`sftp` takes `host`, `port`, `username`, `path`, `privateKey` and optionally `hostKeys`; `rest` takes `url` and optionally `username`, `password`, `pruneUsername`, `prunePassword`; `s3` takes `endpoint`, `bucket`, `accessKeyId`, `secretAccessKey` and optionally `prefix`, `region`, `pruneAccessKeyId`, `pruneSecretAccessKey`; `local` takes none. `errors[]` names each field.',
  },
  invalid_target_url: {
    status: 422,
    detail: 'The URL is not an http or https URL without credentials, query or fragment.',
    description:
      'A REST server’s `url` and an S3 `endpoint` are `http://` or `https://` URLs; credentials go in their own fields, never in the URL.',
  },
  invalid_target_host: {
    status: 422,
    detail: 'The host is not a host name or IP address.',
    description: 'An SFTP target’s `host` is a DNS name (`backup.example.net`) or an IPv4 or IPv6 address.',
  },
  invalid_target_path: {
    status: 422,
    detail: 'The path holds characters a repository path cannot.',
    description:
      'An SFTP `path` and an S3 `prefix` are `/`-separated names of letters, digits, `.`, `_`, `-`, `+`, `@` and `~`, without `..`.',
  },
  invalid_target_username: {
    status: 422,
    detail: 'The SFTP login is not a user name ssh takes as it is.',
    description: 'An SFTP `username` is 1 to 64 letters, digits, `.`, `_` and `-`, not starting with `-`.',
  },
  invalid_private_key: {
    status: 422,
    detail: 'The private key is not an unencrypted OpenSSH or PEM private key.',
    description:
      '`privateKey` is the login’s private key as `ssh-keygen` writes it (`-----BEGIN OPENSSH PRIVATE KEY-----`, or a PEM RSA/EC key), without a passphrase: nodes use it unattended.',
  },
  invalid_host_key: {
    status: 422,
    detail: 'A host key is not an SSH public key line.',
    description:
      '`hostKeys` are the server’s public host keys as `ssh-keyscan` prints them after the host (`ssh-ed25519 AAAA…`); omit them to have the panel read and pin the keys the server shows.',
  },
  invalid_bucket_name: {
    status: 422,
    detail: 'The bucket name is not an S3 bucket name.',
    description:
      '3 to 63 lower-case letters, digits, `.` and `-`, starting and ending with a letter or digit.',
  },
  target_unreachable: {
    status: 422,
    detail: 'The panel could not reach the backup target.',
    description:
      'Checking the target failed before logging in: a wrong host, port or URL, a firewall, or the server is down. Nothing was stored.',
  },
  target_login_failed: {
    status: 422,
    detail: 'The backup target did not accept the credentials.',
    description:
      'The server answered but refused the key, user name and password, or access key (`errors[].location` names which credentials: the prune ones too when given). Nothing was stored.',
  },
  target_host_key_mismatch: {
    status: 422,
    detail: 'The SFTP server’s host key is not one of those given.',
    description:
      'The server showed a host key other than `hostKeys`: check the keys (or the host: another machine may answer there). Nothing was stored.',
  },
  target_refused: {
    status: 422,
    detail: 'The backup target refused what a backup needs.',
    description:
      'Logged in, but writing the check repository (`<path>/plinth-check`), or with the prune credentials removing its snapshot, was refused: a read-only folder, a missing bucket, an append-only user given as the prune one. Nothing was stored.',
  },
  target_check_failed: {
    status: 422,
    detail: 'Checking the backup target failed.',
    description:
      'restic could not make, write or read the check repository `plinth-check` on the target; the detail gives restic’s words. A `plinth-check` left there by another installation with another password also fails. Nothing was stored.',
  },
})
