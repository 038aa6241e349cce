// The `sftp` node service: the panel puts and removes a site's SFTP accounts on the node, which keeps them (hashes
// and public keys only) and runs the SSH server that authenticates against them. The same code runs in the panel's
// process for the local node and in the node agent.

import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeRefusal, type NodeService } from '../../nodes/node/contract.ts'
import { checkPublicKey } from '../keys.ts'
import { type AccountStore, openAccountStore, UsernameTaken } from './accounts.ts'
import { loadHostKeys } from './host-keys.ts'
import {
  type SftpNodeAccount,
  type SftpNodeInfo,
  type SftpNodeRemoved,
  type SftpNodeRequest,
  sftpServiceName,
} from './protocol.ts'
import { findSandboxTools } from './sandbox.ts'
import { credentialStamp, type SftpServer, startSftpServer } from './server.ts'

/** Options of {@link sftpNodeService}. */
export interface SftpServiceOptions {
  /** The port the SSH server listens on (`SFTP_PORT`); null: the node runs none, and refuses accounts. */
  readonly port: number | null
  /** The address it listens on (`SFTP_LISTEN`). Default `0.0.0.0`. */
  readonly listen?: string
  /** How often live sessions are checked against their account and site, in ms. Default 2 000. */
  readonly checkEveryMs?: number
}

/** A login name: the site's handle, a dot and the account's name. */
const usernamePattern = /^[a-z0-9][a-z0-9-]{0,39}\.[a-z0-9][a-z0-9-]{0,31}$/

/** The account in a request, checked (a node trusts the panel, but keeps only what it can use). */
function checkedAccount(value: unknown, siteId: string): SftpNodeAccount {
  const account = value as Partial<SftpNodeAccount> | null
  const bad = (what: string) => new NodeRefusal('invalid_sftp_request', `The account's ${what} is not valid`)
  if (!account || typeof account !== 'object') throw bad('record')
  if (typeof account.id !== 'string' || !/^sftpu_[0-9A-Z]{26}$/.test(account.id)) throw bad('id')
  if (account.siteId !== siteId) throw bad('site')
  if (typeof account.username !== 'string' || !usernamePattern.test(account.username)) throw bad('username')
  if (account.passwordHash !== null && !/^\$argon2id\$/.test(String(account.passwordHash)))
    throw bad('password hash')
  if (!Array.isArray(account.publicKeys) || account.publicKeys.length > 100) throw bad('public keys')
  const publicKeys = account.publicKeys.map((line) => {
    const key = checkPublicKey(String(line))
    if ('refused' in key) throw bad('public key')
    return key.openssh
  })
  if (account.passwordHash === null && publicKeys.length === 0) throw bad('credentials')
  if (account.expiresAt !== null && Number.isNaN(Date.parse(String(account.expiresAt)))) throw bad('expiry')
  return {
    id: account.id,
    username: account.username,
    siteId,
    passwordHash: account.passwordHash ?? null,
    publicKeys,
    readOnly: account.readOnly === true,
    expiresAt: account.expiresAt ?? null,
  }
}

/** The `sftp` node service; its SSH server starts with the node when `options.port` is set. */
export function sftpNodeService(options: SftpServiceOptions): NodeService {
  let running: { server: SftpServer; accounts: AccountStore; fingerprints: readonly string[] } | null = null
  const info = (): SftpNodeInfo => {
    if (!running)
      throw new NodeRefusal(
        'sftp_unavailable',
        'The site’s node runs no SFTP server (its SFTP_PORT is not set)',
      )
    return { port: running.server.port, hostKeyFingerprints: running.fingerprints }
  }
  return {
    name: sftpServiceName,
    // Where its SSH server listens, or that it runs none (SFTP_PORT off).
    describe: async () => (running ? { port: running.server.port } : { port: null }),
    // The accounts it keeps, for the panel to put back what a rebuilt node lost; none said while it runs no server.
    inventory: async () => (running ? { ids: running.accounts.list().map((account) => account.id) } : null),
    async handle(site, request) {
      const asked = request as SftpNodeRequest | null
      const where = info()
      if (!running) throw new Error('unreachable')
      const { accounts, server } = running
      switch (asked?.op) {
        case 'info':
          return where
        case 'put': {
          const account = checkedAccount(asked.account, site.id)
          const held = accounts.byId(account.id)
          if (held && held.siteId !== site.id)
            throw new NodeRefusal('invalid_sftp_request', 'The account belongs to another site')
          try {
            const previous = await accounts.put(account)
            // New credentials (a rotated password, other keys, read-only now) end the sessions of the old ones.
            if (previous && credentialStamp(previous) !== credentialStamp(account))
              server.endSessionsOf(account.id, 'credentials changed')
          } catch (error) {
            if (error instanceof UsernameTaken)
              throw new NodeRefusal(
                'sftp_username_taken',
                `The username ${account.username} is taken on the node`,
              )
            throw error
          }
          return where
        }
        case 'remove': {
          const id = String(asked.accountId)
          const held = accounts.byId(id)
          if (!held || held.siteId !== site.id)
            return { removed: false, sessionsEnded: 0 } satisfies SftpNodeRemoved
          await accounts.remove(id)
          const sessionsEnded = server.endSessionsOf(id, 'account removed')
          return { removed: true, sessionsEnded } satisfies SftpNodeRemoved
        }
        default:
          throw new NodeRefusal('invalid_sftp_request', 'Unknown SFTP request')
      }
    },
    async start(host) {
      if (options.port === null) return async () => {}
      const dir = host.dataDir
      // Passable by the sites' users (bubblewrap binds the sandbox's identity files from here as them); the
      // accounts and host keys in it are root's alone (0600).
      await mkdir(dir, { recursive: true, mode: 0o711 })
      await chmod(dir, 0o711)
      const tools = findSandboxTools()
      const hostKeys = await loadHostKeys(dir)
      const accounts = await openAccountStore(dir)
      const server = await startSftpServer({
        host,
        accounts,
        hostKeys,
        tools,
        port: options.port,
        listen: options.listen ?? '0.0.0.0',
        identityDir: join(dir, 'etc'),
        ...(options.checkEveryMs === undefined ? {} : { checkEveryMs: options.checkEveryMs }),
      })
      running = { server, accounts, fingerprints: hostKeys.fingerprints }
      host.log(
        'info',
        { port: server.port, fingerprints: hostKeys.fingerprints },
        `SFTP server on port ${server.port}`,
      )
      return async () => {
        running = null
        await server.close()
      }
    },
  }
}
