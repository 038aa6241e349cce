// Refusals of the files plugin: what a site path, a file operation or an upload can be refused for. Most are the
// node's refusals (plugins/files/node/file-refusal.ts) under the same code.

import { defineProblems } from '../../core/index.ts'

/** The files plugin's problem codes, catalogued in docs/problem-codes.md. */
export const filesProblems = defineProblems({
  invalid_path: {
    status: 422,
    detail: 'The path is not a site path.',
    description:
      'A site path starts with `/` (the site’s home: `/htdocs`, `/logs`, `/tmp`), has at most 4,096 bytes, and holds no NUL byte or control character. Also: moving or copying a directory into itself.',
  },
  path_escapes_site: {
    status: 422,
    detail: 'The path leads out of the site.',
    description:
      'A `..` that climbs above `/`, or a parent folder that is a symbolic link to somewhere outside the site (`/etc`, another site; a relative target that climbs above the home, even to come back). A link is judged by its target’s text, so the answer is the same whether what it names exists or not. Nothing was touched.',
  },
  path_reserved: {
    status: 422,
    detail: 'The path belongs to the node, not to the site.',
    description: '`/state.json` in the site’s home is the node’s record of the site.',
  },
  top_folder: {
    status: 422,
    detail: 'The site’s home and its top folders cannot be changed; change what is in them.',
    description:
      '`/`, `/htdocs`, `/logs` and `/tmp` are the site’s layout: they cannot be deleted, moved, replaced or chmodded.',
  },
  file_not_found: {
    status: 404,
    detail: 'There is no file or directory at that path.',
    description: '`path` names nothing in the site (or a parent folder is missing).',
  },
  not_a_directory: {
    status: 422,
    detail: 'The path, or one of its parents, is not a directory.',
    description: 'Listing needs a directory; every parent of a path must be a directory.',
  },
  is_a_directory: {
    status: 422,
    detail: 'The path is a directory.',
    description:
      'Reading or writing content needs a file; a directory is not replaced by a move, copy or write.',
  },
  not_a_file: {
    status: 422,
    detail: 'The path is not a regular file.',
    description: 'A FIFO, socket or device in the site is neither read nor written.',
  },
  link_not_followed: {
    status: 422,
    detail: 'The path is a symbolic link, which is not followed.',
    description:
      'Operations act on a link itself (delete, move, copy, list it in its folder), never on what it points to: reading, writing, listing through or chmodding a link is refused. `target` says where it points.',
  },
  file_exists: {
    status: 409,
    detail: 'Something exists at that path already.',
    description:
      'Moving, copying or making a directory onto an existing path needs `overwrite: true` (directories are never replaced).',
  },
  permission_denied: {
    status: 403,
    detail: 'The site’s user may not do that.',
    description:
      'Operations run as the site’s Unix user: `/logs` is the node’s (read-only for the site), and files the site’s user cannot read or write stay so.',
  },
  file_too_large: {
    status: 422,
    detail: 'The file is larger than a read answers at once.',
    description:
      'Reading content answers at most `FILES_READ_LIMIT_BYTES` (16 MiB) at once: ask for a `Range`, or make a download link (`POST /sites/{id}/files/download-links`), which streams any size. `sizeBytes` and `limitBytes` say how far apart they are.',
  },
  file_changed: {
    status: 412,
    detail: 'The file changed since it was read.',
    description:
      'A write with `If-Match` found another entity tag on the file (someone saved it meanwhile), or `If-None-Match: *` found a file already. Read it again (its tag is in `etag`), merge, and write with the new tag. Nothing was written.',
  },
  invalid_mode: {
    status: 422,
    detail: 'The mode is not three octal digits.',
    description: '`mode` is `0644`, `755` and the like; setuid, setgid and sticky bits are refused.',
  },
  disk_quota_exceeded: {
    status: 422,
    detail: 'The site’s disk quota has no room for that.',
    description:
      'The write, upload, copy, move, new folder, archive or extraction would take the site past its `limits.diskMB` (`quotaBytes`, `usedBytes` and `neededBytes` say by how much, when the panel counted it), or the kernel stopped it there (`ENOSPC`, `EDQUOT`: the site’s own filesystem or quota is full). `errors[]` points at what would have grown (`body`, `body.to`, `body.path`). Delete files or raise the quota. Nothing half-written stays, and a file that was there is unchanged.',
  },
  upload_too_large: {
    status: 413,
    detail: 'The upload is larger than this installation takes.',
    description:
      'A file uploaded is at most `UPLOAD_LIMIT_BYTES` (10 GiB by default); `limitBytes` says how large.',
  },
  upload_incomplete: {
    status: 400,
    detail: 'The upload ended before all its bytes arrived.',
    description:
      'The body was shorter than its `Content-Length`, or the connection broke: nothing was written; send it again.',
  },
  upload_offset_mismatch: {
    status: 409,
    detail: 'The bytes sent do not start where the upload is.',
    description:
      'A resumable upload goes on from `received` (the bytes the node has): send `Upload-Offset` equal to it. `received` says where it is.',
  },
  upload_busy: {
    status: 409,
    detail: 'Another request is sending bytes of this upload.',
    description:
      'One request at a time sends a resumable upload’s bytes; try again once it has ended (or after two minutes, if it broke).',
  },
  range_not_satisfiable: {
    status: 416,
    detail: 'The range asked for is not in the file.',
    description:
      'A `Range: bytes=` beyond the file’s end, or not one range of bytes. `sizeBytes` is the file’s size.',
  },
  invalid_download_link: {
    status: 404,
    detail: 'The download link is not valid (unknown, expired or for a path that changed).',
    description: 'Download links last 5 minutes; make another with `POST /sites/{id}/files/download-links`.',
  },
  file_operation_failed: {
    status: 502,
    detail: 'The site’s node could not carry out the file operation.',
    description:
      'The node failed in a way the caller cannot fix (a tool missing on it, a disk error): it is logged on the panel with the node’s reason. What the operation had done so far on the node may stand; try again, or tell the provider.',
  },
  invalid_archive: {
    status: 422,
    detail: 'The archive is not a zip or tar.gz that can be read.',
    description:
      'Archives are `.zip`, `.tar.gz` or `.tgz` (the name says which); one that cannot be listed, or holds a device, FIFO or an entry name that cannot be read, is refused (the job fails with this code).',
  },
  archive_entry_escapes: {
    status: 422,
    detail: 'The archive holds an entry outside its folder.',
    description:
      'An entry named with an absolute path or a `..` that climbs out (zip slip), or a hard link to one: the extraction job fails with this code, `entry` names it, and nothing was extracted.',
  },
  archive_link_escapes: {
    status: 422,
    detail: 'The archive holds a symbolic link pointing out of it.',
    description:
      'A link whose target is absolute or climbs out of the extracted files (`entry` and `target` name it): the extraction job fails with this code and nothing reaches `to`.',
  },
})
