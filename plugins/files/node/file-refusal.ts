// Why a file operation on a site was refused: a stable code the API answers with, and a message that names the
// site path asked for (never the node's own path). A NodeRefusal, so it reaches the panel with its code from a
// remote node too.

import { NodeRefusal } from '../../nodes/node/contract.ts'

/** The codes of refused file operations; the files plugin maps each to a problem. */
export const fileRefusalCodes = [
  'invalid_path',
  'path_escapes_site',
  'path_reserved',
  'file_not_found',
  'not_a_directory',
  'is_a_directory',
  'not_a_file',
  'file_exists',
  'link_not_followed',
  'permission_denied',
  'file_too_large',
  'etag_mismatch',
  'directory_not_empty',
  'invalid_mode',
  'upload_incomplete',
  'disk_quota_exceeded',
  'top_folder',
  'invalid_archive',
  'archive_entry_escapes',
  'archive_link_escapes',
] as const
export type FileRefusalCode = (typeof fileRefusalCodes)[number]

/** A refusal of a file operation: repeating it cannot help. */
export class FileRefusal extends NodeRefusal {
  constructor(
    override readonly code: FileRefusalCode,
    message: string,
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(code, message, details)
  }
}

/**
 * The refusal for a write the kernel stopped (ENOSPC on the site's own filesystem, EDQUOT under a quota): the site's
 * disk quota, whichever way the node enforces it.
 */
export function diskFull(sitePath: string): FileRefusal {
  return new FileRefusal(
    'disk_quota_exceeded',
    `The site’s disk has no room left for ${sitePath}: its quota is reached`,
  )
}

/** The refusal for a failed system call on `sitePath`, or the error itself when it is none the API names. */
export function refusalOf(error: unknown, sitePath: string): unknown {
  switch ((error as NodeJS.ErrnoException)?.code) {
    case 'ENOENT':
      return new FileRefusal('file_not_found', `${sitePath} does not exist`)
    case 'ENOTDIR':
      return new FileRefusal('not_a_directory', `A parent of ${sitePath} is not a directory`)
    case 'EISDIR':
      return new FileRefusal('is_a_directory', `${sitePath} is a directory`)
    case 'EEXIST':
      return new FileRefusal('file_exists', `${sitePath} exists already`)
    case 'EACCES':
    case 'EPERM':
      return new FileRefusal('permission_denied', `The site's user may not do that to ${sitePath}`)
    case 'ENOTEMPTY':
      return new FileRefusal('directory_not_empty', `${sitePath} is not empty`)
    case 'ELOOP':
      return new FileRefusal('link_not_followed', `${sitePath} is a symbolic link, which is not followed`)
    case 'ENOSPC':
    case 'EDQUOT':
      return diskFull(sitePath)
    default:
      return error
  }
}
