// How a run fails: a stable code of the protocol's (`repository_unreachable`, `dump_failed`, …) and a message for
// people that names site paths and database ids, never the node's own paths nor a secret.

/** A run's failure with the code its outcome carries. */
export class RunFailure extends Error {
  constructor(
    readonly code:
      | 'repository_unreachable'
      | 'repository_corrupt'
      | 'dump_failed'
      | 'verify_failed'
      | 'snapshot_missing'
      | 'restore_failed'
      | 'not_in_backup'
      | 'disk_quota_exceeded'
      | 'cancelled'
      | 'failed',
    message: string,
  ) {
    super(message)
    this.name = 'RunFailure'
  }
}

/**
 * A program's complaint made fit to show: each of `secrets` and each of `paths` (the node's own) replaced, and only
 * its last line or two kept.
 */
export function scrubbed(text: string, secrets: readonly string[], paths: readonly string[]): string {
  let clean = text
  for (const secret of secrets) if (secret.length >= 3) clean = clean.replaceAll(secret, '***')
  for (const path of [...paths].sort((a, b) => b.length - a.length))
    if (path.length > 1) clean = clean.replaceAll(path, '…')
  const lines = clean
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  return lines.slice(-2).join(' ').slice(0, 500)
}
