// What the panel asks a node's `files` service and what it answers: JSON both ways (a file's bytes in base64, a
// part at a time), so one protocol serves the local node in process and remote nodes through their agent.

/** The node service's name. */
export const filesService = 'files'

/** The most bytes one `read` or `upload-part` carries: a file moves through the API in parts of this size. */
export const partBytes = 4 * 1024 * 1024

/** The archive formats, by the name's ending. */
export type ArchiveFormat = 'zip' | 'tar.gz'

/** The format a path's name says (`.zip`, `.tar.gz`, `.tgz`), or null. */
export function archiveFormatOf(path: string): ArchiveFormat | null {
  if (/\.zip$/i.test(path)) return 'zip'
  if (/\.(tar\.gz|tgz)$/i.test(path)) return 'tar.gz'
  return null
}

/** Kinds of directory entries. */
export type FileType = 'file' | 'directory' | 'link' | 'other'

/** A file, directory or link of a site, as the node found it (the link itself, never what it points to). */
export interface FileEntry {
  /** Its site path: `/htdocs/index.php`. */
  readonly path: string
  readonly name: string
  readonly type: FileType
  /** Bytes (a link's: of its target's name). */
  readonly size: number
  /** Permission bits in octal: `0644`. */
  readonly mode: string
  readonly modifiedAt: string
  /** A link's target as written in it; null for everything else. */
  readonly target: string | null
  /** A regular file's entity tag (changes whenever its content or inode does); null for everything else. */
  readonly etag: string | null
}

/** What the panel may ask. Paths are site paths (`/htdocs/...`), checked again on the node. */
export type FilesRequest =
  | { readonly op: 'list'; readonly path: string; readonly after: string | null; readonly limit: number }
  | { readonly op: 'stat'; readonly path: string }
  | { readonly op: 'read'; readonly path: string; readonly offset: number; readonly length: number }
  | {
      readonly op: 'upload-part'
      /** The upload's id (`upl_…`), the same for every part. */
      readonly upload: string
      /** Where the file goes: its bytes wait beside it (`.plinth-upload-<id>`), in the folder it goes in. */
      readonly path: string
      readonly offset: number
      /** base64 of at most {@link partBytes}. */
      readonly data: string
    }
  | {
      readonly op: 'upload-commit'
      readonly upload: string
      readonly path: string
      /** The whole upload's size: a part missing or doubled is refused (`upload_incomplete`). */
      readonly size: number
      /** Replace only the file with this entity tag (`If-Match`); `*`: only an existing file. */
      readonly ifMatch: string | null
      /** `*`: only when no file is there yet (`If-None-Match: *`). */
      readonly ifNoneMatch: '*' | null
    }
  | { readonly op: 'upload-abort'; readonly upload: string; readonly path: string }
  | { readonly op: 'mkdir'; readonly path: string; readonly parents: boolean }
  | {
      readonly op: 'move' | 'copy'
      readonly from: string
      readonly to: string
      readonly overwrite: boolean
    }
  | { readonly op: 'delete'; readonly paths: readonly string[] }
  | { readonly op: 'chmod'; readonly path: string; readonly mode: string }
  | {
      readonly op: 'archive'
      /** The job it runs under: the task its progress is asked by. */
      readonly task: string
      readonly paths: readonly string[]
      readonly to: string
      readonly overwrite: boolean
    }
  | {
      readonly op: 'extract'
      readonly task: string
      readonly path: string
      readonly to: string
      readonly overwrite: boolean
    }
  | { readonly op: 'progress'; readonly task: string }

/** A page of a directory: entries sorted by name, and the name to go on after (null: the last page). */
export interface FileListing {
  readonly entries: readonly FileEntry[]
  readonly next: string | null
}

/** A part of a file: its bytes in base64, and the entry read with them (its size and tag). */
export interface FilePart {
  readonly entry: FileEntry
  readonly data: string
}

/** How far an archive or extraction got (null from `progress` once it is over or unknown). */
export interface TaskProgress {
  readonly done: number
  readonly total: number
}
