// A file's bytes in and out, a part at a time, as the site's user: `dd` reads with O_NOFOLLOW (a link is never
// read through) and O_NONBLOCK (a FIFO planted in the site does not hang the node); uploads are written into the
// site's own `tmp/.uploads/` and renamed into place once whole, so a reader never sees half a file.

import type { NodeSite } from '../../nodes/contract.ts'
import { FileRefusal } from './file-refusal.ts'

/** Where a site's uploads under way are kept: in its own tmp/, on the same filesystem as its documents. */
export const uploadsDir = (site: NodeSite) => `${site.home}/tmp/.uploads`

/** The file an upload is written into (its id checked to be a plain name). */
export function uploadFile(site: NodeSite, upload: string): string {
  if (!/^upl_[0-9A-Za-z]{10,40}$/.test(upload)) throw new FileRefusal('invalid_path', 'Not an upload id')
  return `${uploadsDir(site)}/${upload}`
}

/** Runs `argv` as the site's user with `input` on stdin; resolves with stdout's bytes, or throws with stderr. */
async function runBinary(
  site: NodeSite,
  argv: string[],
  input: Uint8Array | null,
  signal: AbortSignal,
): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  signal.throwIfAborted()
  const child = Bun.spawn(site.asUser(argv), {
    cwd: site.home,
    env: { ...site.environment },
    stdin: input ? new Blob([input as BlobPart]) : 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 120_000,
    signal,
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).bytes(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** The refusal dd's complaint names, or a plain error. */
function ddFailure(stderr: string, sitePath: string): Error {
  if (/Too many levels of symbolic links/.test(stderr))
    return new FileRefusal('link_not_followed', `${sitePath} is a symbolic link, which is not followed`)
  if (/Permission denied/.test(stderr))
    return new FileRefusal('permission_denied', `The site's user may not do that to ${sitePath}`)
  if (/No such file/.test(stderr)) return new FileRefusal('file_not_found', `${sitePath} does not exist`)
  if (/Is a directory/.test(stderr)) return new FileRefusal('is_a_directory', `${sitePath} is a directory`)
  if (/No space left|Disk quota exceeded/.test(stderr))
    return new FileRefusal('disk_quota_exceeded', 'The node has no room for the file')
  return new Error(`Reading or writing ${sitePath} failed: ${stderr.trim().slice(0, 500)}`)
}

/** `length` bytes of the regular file at `absolute` from `offset` (fewer at its end). */
export async function readPart(
  site: NodeSite,
  absolute: string,
  sitePath: string,
  offset: number,
  length: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const result = await runBinary(
    site,
    [
      'dd',
      `if=${absolute}`,
      'iflag=nofollow,nonblock,skip_bytes,count_bytes',
      `skip=${offset}`,
      `count=${length}`,
      'bs=1M',
      'status=none',
    ],
    null,
    signal,
  )
  if (result.code !== 0) throw ddFailure(result.stderr, sitePath)
  return result.stdout
}

/** Writes `data` into the upload's file at `offset` (made on the first part), as the site's user. */
export async function writePart(
  site: NodeSite,
  upload: string,
  offset: number,
  data: Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  if (offset === 0) {
    const mkdir = await site.run(['mkdir', '-p', '-m', '0700', uploadsDir(site)], {}, signal)
    if (mkdir.code !== 0) throw ddFailure(mkdir.stderr, '/tmp/.uploads')
  }
  const result = await runBinary(
    site,
    [
      'dd',
      `of=${uploadFile(site, upload)}`,
      'oflag=nofollow,seek_bytes',
      'conv=notrunc',
      `seek=${offset}`,
      'bs=1M',
      'status=none',
    ],
    data,
    signal,
  )
  if (result.code !== 0) throw ddFailure(result.stderr, 'the upload')
}
