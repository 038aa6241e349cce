// Room on a site's filesystem for what the runtime writes there as root (its state, the files it puts back). Root's
// reserve on a site's image is blocks, not inodes: a site that makes files until none is left would leave the
// runtime unable to write its state, and so unable to suspend it. A small file of root's in the home (the site
// cannot remove it: the home is root's) holds one inode and a few blocks back; a write refused for room gives
// them up and tries once more, and the next change of the site makes the file again.

import { open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { runtimeHomeFiles } from '../contract.ts'
import type { SiteLayout } from './layout.ts'

/**
 * The runtime's held-back room: its name in the site's home (listed in the contract's {@link runtimeHomeFiles}, which
 * services never show the site), and its size (a state file is a few hundred bytes).
 */
const roomName = '.plinth-room'
const roomBytes = 16_384

const roomOf = (paths: SiteLayout) => join(paths.home, roomName)

/** Whether an error is a refusal for room (blocks or inodes, the filesystem's or a quota's). */
export const outOfRoom = (error: unknown) =>
  ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException)?.code ?? '')

/** Makes the held-back room when it is missing; a site that left no room for it now gets none held back. */
export async function holdRoom(paths: SiteLayout): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(roomOf(paths), 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' || outOfRoom(error)) return
    throw error
  }
  try {
    await handle.writeFile(Buffer.alloc(roomBytes))
    await handle.sync()
    await handle.close()
  } catch (error) {
    await handle.close()
    // Half a room is no room: the next change tries again.
    await rm(roomOf(paths), { force: true })
    if (!outOfRoom(error)) throw error
  }
}

/** Runs `write`; refused for room, gives up the held-back room and runs it once more. */
export async function withRoom<T>(paths: SiteLayout, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (!outOfRoom(error)) throw error
    await rm(roomOf(paths), { force: true })
    return await write()
  }
}
