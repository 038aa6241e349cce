// Directory entries as the site's user sees them: GNU find run as that user, printing each entry's fields
// NUL-separated (names may hold tabs and newlines), never following a link.

import type { NodeSite } from '../../nodes/node/contract.ts'
import type { FileEntry, FileType } from '../protocol.ts'
import { FileRefusal } from './file-refusal.ts'
import { refusalOfMessage } from './run-checked.ts'

/** find's -printf for one entry: type, size, mode, mtime, inode, name, link target; each ended by NUL. */
const format = '%y\\0%s\\0%m\\0%T@\\0%i\\0%f\\0%l\\0'
const fieldsPerEntry = 7

const types: Record<string, FileType> = { f: 'file', d: 'directory', l: 'link' }

/** The entity tag of a regular file: its inode, size and modification time, so any change gives another. */
export function entityTag(inode: string, size: number, mtime: string): string {
  const nanoseconds = mtime.replace('.', '').replace(/^0+(?=\d)/, '')
  return `"${BigInt(inode).toString(36)}-${size.toString(36)}-${BigInt(nanoseconds).toString(36)}"`
}

/** Parses find's output into entries under the site directory `parent` (`/` or `/htdocs`). */
function parse(output: string, parentPath: string | null, ownPath: string | null): FileEntry[] {
  const fields = output.split('\0')
  const entries: FileEntry[] = []
  for (let at = 0; at + fieldsPerEntry <= fields.length; at += fieldsPerEntry) {
    const [kind = '', size = '0', mode = '0', mtime = '0', inode = '0', name = '', target = ''] =
      fields.slice(at, at + fieldsPerEntry)
    const type = types[kind] ?? 'other'
    const bytes = Number(size)
    const path = ownPath ?? (parentPath === '/' ? `/${name}` : `${parentPath}/${name}`)
    entries.push({
      path,
      name: ownPath === '/' ? '' : name,
      type,
      size: bytes,
      mode: mode.padStart(4, '0'),
      modifiedAt: new Date(Number(mtime) * 1000).toISOString(),
      target: type === 'link' ? target : null,
      etag: type === 'file' ? entityTag(inode, bytes, mtime) : null,
    })
  }
  return entries
}

/** Runs find as the site's user; a failure it reports becomes the refusal for `sitePath`. */
async function find(site: NodeSite, args: string[], sitePath: string, signal: AbortSignal): Promise<string> {
  const result = await site.run(['find', ...args], { timeoutMs: 60_000 }, signal)
  if (result.code === 0) return result.stdout
  throw (
    refusalOfMessage(result.stderr, sitePath) ??
    new Error(`Listing ${sitePath} failed: ${result.stderr.trim().slice(0, 500)}`)
  )
}

/** The entry at `absolute` (its site path `sitePath`), not following a link; a refusal when there is none. */
export async function statEntry(
  site: NodeSite,
  absolute: string,
  sitePath: string,
  signal: AbortSignal,
): Promise<FileEntry> {
  const [entry] = parse(
    await find(site, ['-P', absolute, '-maxdepth', '0', '-printf', format], sitePath, signal),
    null,
    sitePath,
  )
  if (!entry) throw new FileRefusal('file_not_found', `${sitePath} does not exist`)
  return entry
}

/** The entry at `absolute`, or null when there is none. */
export async function entryOrNull(
  site: NodeSite,
  absolute: string,
  sitePath: string,
  signal: AbortSignal,
): Promise<FileEntry | null> {
  try {
    return await statEntry(site, absolute, sitePath, signal)
  } catch (error) {
    if (error instanceof FileRefusal && error.code === 'file_not_found') return null
    throw error
  }
}

/** Every entry of the directory at `absolute` (site path `sitePath`), sorted by name (byte order). */
export async function listEntries(
  site: NodeSite,
  absolute: string,
  sitePath: string,
  signal: AbortSignal,
): Promise<FileEntry[]> {
  const output = await find(
    site,
    ['-P', absolute, '-mindepth', '1', '-maxdepth', '1', '-printf', format],
    sitePath,
    signal,
  )
  return parse(output, sitePath, null).sort((a, b) =>
    Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
  )
}
