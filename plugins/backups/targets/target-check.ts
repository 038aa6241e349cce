// The check a target passes before it is kept (as a database server's connection test): the panel makes or opens
// the repository `plinth-check` on it with the credentials nodes will hold, backs a few bytes up to it, and removes
// that snapshot with the prune credentials (the same ones when none are separate), so a target that cannot take a
// backup, or whose pruning would fail, is refused with a code, located at the field to fix, and nothing is stored.

import { Problem, type ProblemRef } from '../../../core/index.ts'
import type { RepositorySpec } from '../node/protocol.ts'
import { forgetOnPanel, initOrOpen, ResticFailure, runRestic } from '../panel-restic.ts'
import { targetProblems } from './problems.ts'
import { locationIn, type RepositoryPurpose } from './repository-location.ts'
import { scanHostKeys } from './ssh-keys.ts'
import type { OpenTarget } from './target-record.ts'

/** The repository the check uses, beside the sites' own on the target. */
export const checkRepositoryName = 'plinth-check'
/**
 * Its password: it holds nothing but the check's few bytes, and another installation (or this one again, after the
 * target was deleted and added back) must be able to open what an earlier check left.
 */
const checkPassword = 'plinth-check: holds no data'
/** How long the whole check may take before the target counts as unreachable. */
const checkTimeoutMs = 120_000

/**
 * An SFTP target given no host keys with the keys its server shows now (pinned from then on); refused as
 * unreachable when none can be read.
 */
export async function withScannedHostKeys(target: OpenTarget): Promise<OpenTarget> {
  const place = target.place
  if (place.kind !== 'sftp' || place.hostKeys.length > 0) return target
  const hostKeys = await scanHostKeys(place.host, place.port, AbortSignal.timeout(30_000))
  if (hostKeys.length === 0)
    throw refusal(
      targetProblems.target_unreachable,
      'host',
      `no SSH server answered at ${place.host}:${place.port}`,
    )
  return { ...target, place: { ...place, hostKeys } }
}

/** Checks the target as described above; throws the refusal. A `local` target is each node's disk: nothing to try. */
export async function checkTarget(target: OpenTarget): Promise<void> {
  if (target.place.kind === 'local') return
  const signal = AbortSignal.timeout(checkTimeoutMs)
  const spec = (purpose: RepositoryPurpose): RepositorySpec => ({
    location: locationIn(target, checkRepositoryName, purpose),
    password: checkPassword,
  })
  let snapshotId: string
  try {
    await initOrOpen(spec('push'), signal)
    const written = await runRestic(
      spec('push'),
      ['backup', '--json', '--stdin', '--stdin-filename', 'check.txt', '--tag', 'plinth-check'],
      signal,
      `checked by the panel at ${new Date().toISOString()}\n`,
    )
    snapshotId = snapshotOf(written.stdout)
  } catch (error) {
    throw checkRefusal(error, target, 'push')
  }
  try {
    await forgetOnPanel(spec('prune'), [snapshotId], signal)
  } catch (error) {
    throw checkRefusal(error, target, 'prune')
  }
}

/** The snapshot id in `backup --json`'s summary line. */
function snapshotOf(stdout: string): string {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as { message_type?: string; snapshot_id?: string }
      if (parsed.message_type === 'summary' && parsed.snapshot_id) return parsed.snapshot_id
    } catch {}
  }
  throw new ResticFailure('failed', 'restic saved no snapshot')
}

/** The refusal for a failed step, at the field staff would change. */
function checkRefusal(error: unknown, target: OpenTarget, purpose: RepositoryPurpose): Problem {
  if (!(error instanceof ResticFailure)) throw error
  const kind = target.place.kind
  const separate = purpose === 'prune' && target.prune !== null
  const fields = {
    where: { sftp: 'host', rest: 'url', s3: 'endpoint', local: 'kind' }[kind],
    folder: { sftp: 'path', rest: 'url', s3: 'bucket', local: 'kind' }[kind],
    login: separate
      ? { sftp: 'privateKey', rest: 'prunePassword', s3: 'pruneSecretAccessKey', local: 'kind' }[kind]
      : { sftp: 'privateKey', rest: 'password', s3: 'secretAccessKey', local: 'kind' }[kind],
    rights: separate
      ? { sftp: 'username', rest: 'pruneUsername', s3: 'pruneAccessKeyId', local: 'kind' }[kind]
      : { sftp: 'username', rest: 'username', s3: 'accessKeyId', local: 'kind' }[kind],
  }
  const said = `restic: ${error.message.split('\n').slice(0, 3).join(' ')}`
  switch (error.code) {
    case 'unreachable':
      return refusal(targetProblems.target_unreachable, fields.where, said)
    case 'login_failed':
      return refusal(targetProblems.target_login_failed, fields.login, said)
    case 'host_key_mismatch':
      return refusal(targetProblems.target_host_key_mismatch, 'hostKeys')
    case 'refused':
      return refusal(
        targetProblems.target_refused,
        purpose === 'prune' ? fields.rights : fields.folder,
        purpose === 'prune' ? `these credentials may not delete snapshots (${said})` : said,
      )
    default:
      return refusal(targetProblems.target_check_failed, fields.folder, said)
  }
}

function refusal(problem: ProblemRef, field: string, message: string = problem.detail): Problem {
  return new Problem(problem, {
    detail: message,
    errors: [{ location: `body.${field}`, message, code: problem.code }],
  })
}
