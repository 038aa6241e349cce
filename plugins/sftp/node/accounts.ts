// The SFTP accounts a node keeps, in `<dataDir>/services/sftp/accounts.json` (root's, 0600): the panel puts and removes them
// through the `sftp` node service; the SSH server reads them to authenticate logins without asking the panel.

import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SftpNodeAccount } from './protocol.ts'

/** The accounts of a node, by id, written through at every change. */
export interface AccountStore {
  byUsername(username: string): SftpNodeAccount | null
  byId(id: string): SftpNodeAccount | null
  /** Creates or replaces the account; answers the one it replaced, or null. */
  put(account: SftpNodeAccount): Promise<SftpNodeAccount | null>
  /** Removes the account; answers it, or null when there was none. */
  remove(id: string): Promise<SftpNodeAccount | null>
  list(): readonly SftpNodeAccount[]
}

/** A username is on the node already, for another account. */
export class UsernameTaken extends Error {}

/** Opens (or starts) the store at `<dir>/accounts.json`; `dir` is the service's own folder. */
export async function openAccountStore(dir: string): Promise<AccountStore> {
  const path = join(dir, 'accounts.json')
  const accounts = new Map<string, SftpNodeAccount>()
  try {
    const saved = JSON.parse(await readFile(path, 'utf8')) as { accounts?: SftpNodeAccount[] }
    for (const account of saved.accounts ?? []) accounts.set(account.id, account)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  // Writes one at a time, each a whole new file renamed over the old: a crash leaves one or the other.
  let writing: Promise<void> = Promise.resolve()
  const save = () => {
    const text = `${JSON.stringify({ accounts: [...accounts.values()] }, null, 2)}\n`
    writing = writing.then(async () => {
      await mkdir(dir, { recursive: true })
      const temporary = `${path}.${process.pid}.tmp`
      await writeFile(temporary, text, { mode: 0o600 })
      await chmod(temporary, 0o600)
      await rename(temporary, path)
    })
    return writing
  }
  const byUsername = (username: string) =>
    [...accounts.values()].find((account) => account.username === username) ?? null
  return {
    byUsername,
    byId: (id) => accounts.get(id) ?? null,
    list: () => [...accounts.values()],
    async put(account) {
      const holder = byUsername(account.username)
      if (holder && holder.id !== account.id) throw new UsernameTaken(account.username)
      const previous = accounts.get(account.id) ?? null
      accounts.set(account.id, account)
      await save()
      return previous
    },
    async remove(id) {
      const previous = accounts.get(id) ?? null
      if (!previous) return null
      accounts.delete(id)
      await save()
      return previous
    },
  }
}
