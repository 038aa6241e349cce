// The uids (and gids) of sites' Unix users, never reused: `useradd` alone takes the highest free uid, so a deleted
// site's uid went to the next site made, and with it whatever the deleted one left behind (a process that outlived
// its deletion, files in a shared temporary directory). The node keeps the last id it gave in its data directory,
// written atomically before the user is made, and only ever counts up.

import { readFile } from 'node:fs/promises'
import { NodeFailure } from '../contract.ts'
import { removeAbandonedTemporaries, writeFileAtomic } from './atomic-files.ts'
import { run } from './commands.ts'

/** The ids sites' users are given from, both ends included: the system's range for regular users. */
export interface IdRange {
  readonly first: number
  readonly last: number
}

/** `useradd`'s own defaults, when `/etc/login.defs` says nothing. */
const defaultRange: IdRange = { first: 1000, last: 60000 }

/**
 * The range of regular users' and groups' ids `/etc/login.defs` sets (`UID_MIN`…`UID_MAX`, narrowed to
 * `GID_MIN`…`GID_MAX`, since a site's group gets the same number), 1000…60000 where it says nothing.
 */
export async function siteIdRange(loginDefs = '/etc/login.defs'): Promise<IdRange> {
  const text = await readFile(loginDefs, 'utf8').catch(() => '')
  const setting = (name: string, fallback: number) => {
    const value = new RegExp(`^\\s*${name}\\s+(\\d+)\\s*$`, 'm').exec(text)?.[1]
    return value === undefined ? fallback : Number(value)
  }
  return {
    first: Math.max(setting('UID_MIN', defaultRange.first), setting('GID_MIN', defaultRange.first)),
    last: Math.min(setting('UID_MAX', defaultRange.last), setting('GID_MAX', defaultRange.last)),
  }
}

/** The highest id in `range` that a user (`passwd`) or group (`group`) of the system has, through NSS. */
async function highestTaken(range: IdRange): Promise<number> {
  let highest = range.first - 1
  for (const database of ['passwd', 'group']) {
    const result = await run(['getent', database])
    if (result.code !== 0) throw new Error(`getent ${database} failed: ${result.stderr.trim()}`)
    for (const line of result.stdout.split('\n')) {
      const id = Number(line.split(':')[2])
      if (Number.isInteger(id) && id >= range.first && id <= range.last && id > highest) highest = id
    }
  }
  return highest
}

/** The last id given, from the counter file; null when there is none yet (a node made before the counter). */
async function lastGiven(counter: string): Promise<number | null> {
  let text: string
  try {
    text = await readFile(counter, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  const id = /^(\d+)\n?$/.exec(text)?.[1]
  // Never guessed again from the users left: the deleted ones' ids would come back.
  if (id === undefined) throw new Error(`${counter} holds no site uid (${JSON.stringify(text.slice(0, 40))})`)
  return Number(id)
}

/**
 * The id for a new site's user and group: above the last one given and above every user and group of the system in
 * `range`, recorded in `counter` before it is used (a crash after that skips an id, never gives one twice). Past
 * the range, a {@link NodeFailure} `site_uids_exhausted`. Callers hold the runtime's lock: one at a time.
 */
export async function nextSiteId(counter: string, range: IdRange, signal: AbortSignal): Promise<number> {
  const last = (await lastGiven(counter)) ?? range.first - 1
  const id = Math.max(last, await highestTaken(range)) + 1
  if (id > range.last)
    throw new NodeFailure(
      `No uid is left for a new site's user: ids ${range.first}–${range.last} were all given (${counter})`,
      'site_uids_exhausted',
    )
  // A run killed while writing it left its temporary file; the next one clears it away.
  await removeAbandonedTemporaries([counter])
  await writeFileAtomic(counter, `${id}\n`, signal, 0o600)
  return id
}
