// The node's SSH server (the `ssh2` package): it authenticates logins against the accounts the node keeps, serves
// only the `sftp` subsystem (no shell, exec, terminal, agent, X11 or forwarding), each session an sftp-server in
// the site's sandbox as the site's user, and cuts live sessions whose account went, changed its credentials or
// expired, or whose site stopped running.

import { type ChildProcess, spawn } from 'node:child_process'
import { userInfo } from 'node:os'
import { type AuthContext, type Connection, Server, type ServerChannel, utils } from 'ssh2'
import type { NodeServiceHost, NodeSite } from '../../nodes/node/contract.ts'
import type { AccountStore } from './accounts.ts'
import type { HostKeys } from './host-keys.ts'
import type { SftpNodeAccount } from './protocol.ts'
import { type SandboxTools, sandboxArgv, writeIdentityFiles } from './sandbox.ts'

/** Options of {@link startSftpServer}. */
export interface SftpServerOptions {
  readonly host: NodeServiceHost
  readonly accounts: AccountStore
  readonly hostKeys: HostKeys
  readonly tools: SandboxTools
  /** The TCP port; 0 picks a free one. */
  readonly port: number
  /** The address to listen on. */
  readonly listen: string
  /** Where the sandboxes' `/etc/passwd` and `/etc/group` are written. */
  readonly identityDir: string
  /** How often live sessions are checked against their account and site, in ms. Default 2 000. */
  readonly checkEveryMs?: number
}

/** A running server. */
export interface SftpServer {
  /** The port it listens on. */
  readonly port: number
  /** Ends the live sessions of an account at once; answers how many there were. */
  endSessionsOf(accountId: string, reason: string): number
  close(): Promise<void>
}

/** What identifies an account's credentials: a session logged in with other ones is cut. */
export function credentialStamp(account: SftpNodeAccount): string {
  return JSON.stringify([
    account.passwordHash,
    [...account.publicKeys].sort(),
    account.readOnly,
    account.siteId,
  ])
}

/** A logged-in connection. */
interface Live {
  readonly account: SftpNodeAccount
  readonly stamp: string
  readonly connection: Connection
  readonly address: string
  readonly children: Set<ChildProcess>
  ended: boolean
}

const maxFailedAttempts = 6
const expired = (account: SftpNodeAccount) =>
  account.expiresAt !== null && Date.parse(account.expiresAt) <= Date.now()

/** Starts the server; resolves once it listens (rejects when it cannot: the port taken). */
export async function startSftpServer(options: SftpServerOptions): Promise<SftpServer> {
  const { host, accounts, tools } = options
  const live = new Set<Live>()

  function cut(session: Live, reason: string) {
    if (session.ended) return
    session.ended = true
    live.delete(session)
    for (const child of session.children) child.kill('SIGKILL')
    session.connection.end()
    host.log(
      'info',
      { accountId: session.account.id, siteId: session.account.siteId, reason },
      'SFTP session ended by the node',
    )
  }

  /** The site of an account when it may log in now: on the node, active; null otherwise. */
  async function runningSite(account: SftpNodeAccount): Promise<NodeSite | null> {
    try {
      const site = await host.site(account.siteId)
      return site.state === 'active' ? site : null
    } catch {
      return null
    }
  }

  /** Whether the credentials of `context` are the account's. */
  async function verified(account: SftpNodeAccount, context: AuthContext): Promise<boolean | 'key-ok'> {
    if (context.method === 'password')
      return (
        account.passwordHash !== null && (await Bun.password.verify(context.password, account.passwordHash))
      )
    if (context.method !== 'publickey') return false
    for (const line of account.publicKeys) {
      const key = utils.parseKey(line)
      if (key instanceof Error || Array.isArray(key)) continue
      if (!context.key.data.equals(key.getPublicSSH())) continue
      // Without a signature the client only asks whether the key would do.
      if (!context.signature || !context.blob) return 'key-ok'
      return key.verify(context.blob, context.signature, context.hashAlgo) === true
    }
    return false
  }

  function serveSftp(session: Live, site: NodeSite, channel: ServerChannel) {
    const root = process.getuid?.() === 0
    const user =
      site.user ??
      (root
        ? null
        : { name: userInfo().username, uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 })
    return async () => {
      if (!user) throw new Error(`Site ${site.id} has no Unix user to run SFTP as`)
      const identity = await writeIdentityFiles(options.identityDir, user)
      const argv = site.asUser(
        sandboxArgv({ tools, home: site.home, identity, readOnly: session.account.readOnly }),
      )
      const [command = '', ...args] = argv
      const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...site.environment } })
      session.children.add(child)
      let said = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        said = (said + chunk.toString()).slice(-2000)
      })
      // Each way, a side that cannot take more pauses the other until it drains: a large upload is never buffered.
      const { stdin, stdout } = child
      if (!stdin || !stdout) throw new Error('sftp-server has no pipes')
      stdin.on('error', () => {})
      channel.on('data', (chunk: Buffer) => {
        if (!stdin.write(chunk)) channel.pause()
      })
      stdin.on('drain', () => channel.resume())
      channel.on('end', () => stdin.end())
      stdout.on('data', (chunk: Buffer) => {
        if (!channel.write(chunk)) stdout.pause()
      })
      channel.on('drain', () => stdout.resume())
      channel.on('close', () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      })
      child.on('close', (code, signal) => {
        session.children.delete(child)
        if (code !== 0 && !session.ended)
          host.log(
            'warn',
            { accountId: session.account.id, code, signal, said: said.trim() },
            'sftp-server ended',
          )
        // Killed from outside (the site suspended or deleted ends its user's processes): the connection goes too.
        if (signal !== null) return cut(session, 'sftp-server killed')
        try {
          channel.exit(code ?? 1)
          channel.end()
        } catch {
          // The channel is gone already.
        }
      })
    }
  }

  const server = new Server(
    { hostKeys: [...options.hostKeys.privateKeys], ident: 'Plinth_SFTP' },
    (connection, info) => {
      let failures = 0
      let session: Live | null = null
      connection.on('error', () => {})
      connection.on('authentication', (context) => {
        void (async () => {
          const account = accounts.byUsername(context.username)
          const methods: ('password' | 'publickey')[] = ['publickey', 'password']
          if (context.method === 'none' || !account || expired(account)) {
            if (context.method !== 'none') failures++
            return context.reject(methods)
          }
          const answer = await verified(account, context)
          if (answer === 'key-ok') return context.accept()
          const site = answer ? await runningSite(account) : null
          if (!answer || !site) {
            failures++
            host.log(
              'info',
              {
                username: context.username,
                method: context.method,
                address: info.ip,
                siteRunning: site !== null,
              },
              'SFTP login refused',
            )
            if (failures >= maxFailedAttempts) return connection.end()
            return context.reject(methods)
          }
          session = {
            account,
            stamp: credentialStamp(account),
            connection,
            address: info.ip,
            children: new Set(),
            ended: false,
          }
          context.accept()
        })().catch(() => context.reject())
      })
      connection.on('ready', () => {
        const current = session
        if (!current) return connection.end()
        live.add(current)
        host.log(
          'info',
          { accountId: current.account.id, siteId: current.account.siteId, address: current.address },
          'SFTP login',
        )
        connection.on('session', (accept) => {
          const channel = accept()
          let started = false
          const refuse = (_accept: unknown, reject?: () => void) => reject?.()
          channel.on('pty', refuse)
          channel.on('shell', refuse)
          channel.on('exec', refuse)
          channel.on('x11', refuse)
          channel.on('env', refuse)
          channel.on('auth-agent', refuse)
          channel.on('subsystem', (acceptSubsystem, reject, request) => {
            if (request.name !== 'sftp' || started || current.ended) return reject()
            started = true
            // Accepted at once: OpenSSH's client sends its first packet without waiting for the answer, and the
            // channel keeps what comes until the sandbox is there to read it.
            const channel = acceptSubsystem()
            void (async () => {
              const site = await runningSite(current.account)
              if (!site) return cut(current, 'site not running')
              await serveSftp(current, site, channel)()
            })().catch((error: unknown) => {
              host.log('error', { accountId: current.account.id, err: String(error) }, 'SFTP session failed')
              cut(current, 'failed')
            })
          })
        })
        // Forwarding of every kind is refused.
        connection.on('tcpip', (_accept, reject) => reject())
        connection.on('openssh.streamlocal', (_accept, reject) => reject())
        connection.on('request', (_accept, reject) => reject?.())
      })
      connection.on('close', () => {
        const current = session
        if (!current) return
        current.ended = true
        live.delete(current)
        for (const child of current.children) child.kill('SIGKILL')
      })
    },
  )

  // Live sessions are held to their account and site: removed, changed, expired or no longer running ends them.
  const checking = setInterval(() => {
    for (const session of live) {
      const account = accounts.byId(session.account.id)
      if (!account || credentialStamp(account) !== session.stamp) cut(session, 'account changed or removed')
      else if (expired(account)) cut(session, 'account expired')
      else
        void runningSite(account).then((site) => {
          if (!site) cut(session, 'site not running')
        })
    }
  }, options.checkEveryMs ?? 2_000)
  checking.unref?.()

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.listen, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : options.port)
    })
  })
  server.on('error', (error: Error) => host.log('error', { err: String(error) }, 'SFTP server error'))

  return {
    port,
    endSessionsOf(accountId, reason) {
      let ended = 0
      for (const session of live)
        if (session.account.id === accountId) {
          cut(session, reason)
          ended++
        }
      return ended
    },
    async close() {
      clearInterval(checking)
      for (const session of live) cut(session, 'server stopping')
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
