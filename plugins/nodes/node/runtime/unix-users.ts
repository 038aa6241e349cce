// A Unix user (and group of the same name) per site: made with `groupadd` and `useradd` with an id never given
// before (`site-uids.ts`), no login shell, home in the runtime's data directory; removed with `userdel` once no
// process of it is left.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { NodeFailure } from '../contract.ts'
import { run, runChecked } from './commands.ts'
import { processInfo, waitFor } from './masters.ts'

/** A user as the system knows it. */
export interface UnixUser {
  readonly name: string
  readonly uid: number
  readonly gid: number
  readonly home: string
}

/** The user called `name`, or null. */
export async function findUser(name: string): Promise<UnixUser | null> {
  const result = await run(['getent', 'passwd', name])
  if (result.code === 2) return null
  if (result.code !== 0) throw new Error(`getent passwd ${name} failed: ${result.stderr.trim()}`)
  const [, , uid, gid, , home] = result.stdout.trim().split(':')
  return { name, uid: Number(uid), gid: Number(gid), home: home ?? '' }
}

/** Whether a group called `name` exists. */
async function groupExists(name: string): Promise<boolean> {
  return (await run(['getent', 'group', name])).code === 0
}

const noLogin = ['/usr/sbin/nologin', '/sbin/nologin'].find((path) => existsSync(path)) ?? '/bin/false'

/**
 * Makes the site's user unless it exists (a user made earlier keeps its uid, whatever gave it); one that exists
 * with another home is someone else's, and refused (a {@link NodeFailure}): the runtime never takes over an account
 * it did not make. A new user and its group get the id `newId` answers, never one `useradd` would pick (the
 * highest free one, a deleted site's).
 */
export async function ensureSiteUser(
  name: string,
  home: string,
  siteId: string,
  newId: () => Promise<number>,
): Promise<UnixUser> {
  const existing = await findUser(name)
  if (existing) {
    if (existing.home !== home)
      throw new NodeFailure(
        `The Unix user ${name} exists with the home ${existing.home}, not ${home}: it is not this site's`,
        'unix_user_conflict',
      )
    return existing
  }
  const id = await newId()
  // A group left by a run stopped between the two commands is taken as it is (made here, with an id of its own).
  if (!(await groupExists(name)))
    await runChecked(`groupadd ${name}`, ['groupadd', '--gid', String(id), name])
  await runChecked(`useradd ${name}`, [
    'useradd',
    '--no-create-home',
    '--home-dir',
    home,
    '--shell',
    noLogin,
    '--uid',
    String(id),
    '--gid',
    name,
    '--comment',
    `Plinth site ${siteId}`,
    name,
  ])
  const made = await findUser(name)
  if (!made) throw new Error(`useradd made no user ${name}`)
  return made
}

/** Pids of the processes running as `uid`. */
function processesOf(uid: number): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8')
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1]
      if (Number(real) === uid && processInfo(Number(name)) !== null) pids.push(Number(name))
    } catch {
      // Gone while we looked.
    }
  }
  return pids
}

/**
 * Ends everything running as the site's user: its pool is gone by then, so what is left is the customer's own (a
 * script a request started, detached in a session of its own). A suspended site runs nothing.
 */
export async function endProcessesOf(user: UnixUser): Promise<void> {
  for (const pid of processesOf(user.uid)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Ended by itself meanwhile.
    }
  }
  await waitFor(
    () => (processesOf(user.uid).length === 0 ? true : undefined),
    () => new Error(`Processes of ${user.name} would not end`),
    5_000,
  )
}

/**
 * Removes the site's user and its group, after ending what still runs as it (its pool is gone by then; what is left
 * is the customer's, e.g. a PHP script started from a request). Nothing to do when there is no such user.
 */
export async function removeSiteUser(name: string, home: string): Promise<void> {
  const user = await findUser(name)
  if (user) {
    // Never someone else's account, even if a site's name led here.
    if (user.home !== home)
      throw new NodeFailure(
        `The Unix user ${name} has the home ${user.home}, not ${home}: it is not this site's`,
        'unix_user_conflict',
      )
    await endProcessesOf(user)
    await runChecked(`userdel ${name}`, ['userdel', name])
  }
  // `userdel` removes the user's own group too; one left by a run stopped in between goes now.
  if (await groupExists(name)) await runChecked(`groupdel ${name}`, ['groupdel', name])
}
