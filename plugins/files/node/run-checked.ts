// Running a coreutils program as the site's user, its complaint turned into the refusal it names (or a plain error
// for anything else, which the service reports without the node's paths).

import type { NodeSite } from '../../nodes/node/contract.ts'
import { diskFull, FileRefusal } from './file-refusal.ts'

/** The refusal a program's complaint about `sitePath` names, or null. */
export function refusalOfMessage(message: string, sitePath: string): FileRefusal | null {
  // First: a tool that ran out of room may say more. unzip asks whether the disk is full; tar says it wrote only part
  // of an entry (a short write: the disk took no more).
  if (/No space left|Disk quota exceeded|disk full|Wrote only \d+ of \d+ bytes/i.test(message))
    return diskFull(sitePath)
  if (/Permission denied|Operation not permitted/.test(message))
    return new FileRefusal('permission_denied', `The site's user may not do that to ${sitePath}`)
  if (/Too many levels of symbolic links/.test(message))
    return new FileRefusal('link_not_followed', `${sitePath} is a symbolic link, which is not followed`)
  if (/File name too long/.test(message))
    return new FileRefusal('invalid_path', `A name in ${sitePath} is too long`)
  if (/No such file/.test(message)) return new FileRefusal('file_not_found', `${sitePath} does not exist`)
  if (/File exists/.test(message)) return new FileRefusal('file_exists', `${sitePath} exists already`)
  if (/Not a directory/.test(message))
    return new FileRefusal('not_a_directory', `A parent of ${sitePath} is not a directory`)
  if (/Directory not empty|cannot overwrite directory|Is a directory/.test(message))
    return new FileRefusal('is_a_directory', `${sitePath} is a directory`)
  if (/subdirectory of itself|into itself/.test(message))
    return new FileRefusal('invalid_path', `${sitePath} cannot go inside itself`)
  return null
}

/** Runs `argv` as the site's user; a failure throws the refusal its complaint names. */
export async function runChecked(
  site: NodeSite,
  argv: string[],
  sitePath: string,
  signal: AbortSignal,
  timeoutMs = 300_000,
): Promise<void> {
  const result = await site.run(argv, { timeoutMs }, signal)
  if (result.code === 0) return
  throw (
    refusalOfMessage(result.stderr, sitePath) ??
    new Error(`${argv[0]} failed: ${result.stderr.trim().slice(0, 500)}`)
  )
}
