// What a write checks before a byte moves: the file there (or its folder, when there is none) and the request's
// preconditions, so a doomed upload is refused at once rather than after its body crossed the network. The node
// checks again when it puts the file in place.

import { Problem } from '../../core/index.ts'
import { ifMatchHolds } from './entity-tags.ts'
import { filesProblems as problems } from './problems.ts'
import type { FileEntry } from './protocol.ts'
import type { SiteFiles } from './site-files.ts'

/** The write's preconditions: `If-Match` (a tag list, or `*`) and `If-None-Match: *`. */
export interface WritePreconditions {
  readonly ifMatch: string | null
  readonly ifNoneMatch: '*' | null
}

/** The folder a site path is in. */
const folderOf = (path: string) => path.replace(/\/+$/, '').replace(/\/[^/]*$/, '') || '/'

/** The file the write replaces (null: it makes one), or the refusal it would end with. */
export async function preflightWrite(
  files: SiteFiles,
  path: string,
  preconditions: WritePreconditions,
): Promise<FileEntry | null> {
  const current = await files.call<FileEntry>({ op: 'stat', path }).catch((error: unknown) => {
    if (error instanceof Problem && error.code === problems.file_not_found.code) return null
    throw error
  })
  if (!current) {
    // Its folder must be there (and be a folder): else 404 now, not after the whole body.
    const folder = await files.call<FileEntry>({ op: 'stat', path: folderOf(path) })
    if (folder.type !== 'directory') throw new Problem(problems.not_a_directory)
  } else if (current.type === 'directory') throw new Problem(problems.is_a_directory)
  else if (current.type === 'link')
    throw new Problem(problems.link_not_followed, { extensions: { target: current.target } })
  else if (current.type !== 'file') throw new Problem(problems.not_a_file)
  const { ifMatch, ifNoneMatch } = preconditions
  if ((ifNoneMatch && current) || (ifMatch !== null && !ifMatchHolds(ifMatch, current?.etag ?? null)))
    throw fileChanged(current?.etag ?? null)
  return current
}

/** 412 `file_changed`, with the file's current tag (in `ETag` and `etag`) when there is a file. */
export function fileChanged(etag: string | null): Problem {
  return new Problem(problems.file_changed, {
    extensions: { etag },
    ...(etag === null ? {} : { headers: { etag } }),
  })
}
