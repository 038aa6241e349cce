// A file's bytes in and out, a part at a time, as the site's user: `dd` reads with O_NOFOLLOW (a link is never
// read through) and O_NONBLOCK (a FIFO planted in the site does not hang the node); an upload's bytes wait beside
// the file they become (`.plinth-upload-<id>` in the same folder: its group and filesystem), renamed into place once
// whole, so a reader never sees half a file.

import type { NodeSite } from '../../nodes/node/contract.ts'
import { FileRefusal } from './file-refusal.ts'
import { refusalOfMessage } from './run-checked.ts'
import type { Located } from './site-paths.ts'

/** The file an upload to `target` is written into until whole (its id checked to be a plain name). */
export function uploadFile(target: Located, upload: string): string {
  if (!/^upl_[0-9A-Za-z]{10,40}$/.test(upload)) throw new FileRefusal('invalid_path', 'Not an upload id')
  return `${target.parent}/.plinth-upload-${upload}`
}

/** Runs `argv` as the site's user with `input` on stdin; resolves with stdout's bytes and stderr. */
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
    // The bytes as they are (a Blob would copy them first).
    stdin: input ?? 'ignore',
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
const ddFailure = (stderr: string, sitePath: string): Error =>
  refusalOfMessage(stderr, sitePath) ?? new Error(`dd failed: ${stderr.trim().slice(0, 500)}`)

/**
 * `length` bytes of the regular file at `absolute` from `offset` (fewer at its end). With `length` 0 the file is
 * still opened, so a file the site's user cannot read is refused before an answer starts.
 */
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

/** Writes `data` into `file` at `offset` (made by the first part), as the site's user, never through a link. */
export async function writePart(
  site: NodeSite,
  file: string,
  sitePath: string,
  offset: number,
  data: Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  const result = await runBinary(
    site,
    [
      'dd',
      `of=${file}`,
      'oflag=nofollow,seek_bytes',
      // The first part starts the file afresh (an upload begun again); later ones write after what is there.
      ...(offset === 0 ? [] : ['conv=notrunc']),
      `seek=${offset}`,
      'bs=1M',
      'status=none',
    ],
    data,
    signal,
  )
  if (result.code !== 0) throw ddFailure(result.stderr, sitePath)
}
