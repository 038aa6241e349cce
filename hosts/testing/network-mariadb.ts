// For tests of sites on other machines: a MariaDB of the test's own, listening on this machine's own network address
// (not loopback), as a central database server other nodes reach. The machine's MariaDB listens on 127.0.0.1 only,
// and the tests must not restart it; this one lives in a temporary folder and goes with it.

import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort } from '../../core/testing/free-port.ts'

/** A running MariaDB on the machine's network address, with an administrator the panel registers. */
export interface NetworkMariadb {
  /** This machine's first non-loopback IPv4 address, where the server listens. */
  readonly host: string
  readonly port: number
  readonly username: string
  readonly password: string
  /** Stops the server and removes its folder. */
  stop(): Promise<void>
}

/** This machine's first non-loopback IPv4 address; throws when it has none (the test cannot be made then). */
export function machineAddress(): string {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address
  throw new Error(
    'This machine has no IPv4 address besides loopback: a node on another address cannot be tested',
  )
}

/** The uid and gid of Debian's `mysql` user. */
async function mysqlUser(): Promise<{ uid: number; gid: number }> {
  const line = (await Bun.file('/etc/passwd').text()).split('\n').find((entry) => entry.startsWith('mysql:'))
  const [, , uid, gid] = line?.split(':') ?? []
  if (!uid || !gid) throw new Error('There is no mysql user: is mariadb-server installed?')
  return { uid: Number(uid), gid: Number(gid) }
}

/** Makes and starts the server (a few seconds), with an administrator that may connect from `host`. */
export async function startNetworkMariadb(): Promise<NetworkMariadb> {
  const host = machineAddress()
  const port = freePort()
  const dir = mkdtempSync(join(tmpdir(), 'plinth-netdb-'))
  const data = join(dir, 'data')
  const socket = join(dir, 'mariadb.sock')
  mkdirSync(data)
  const owner = await mysqlUser()
  chownSync(dir, owner.uid, owner.gid)
  chownSync(data, owner.uid, owner.gid)
  const install = Bun.spawnSync([
    'mariadb-install-db',
    '--no-defaults',
    `--datadir=${data}`,
    '--user=mysql',
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ])
  if (install.exitCode !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr.toString()}`)
  const server = Bun.spawn(
    [
      'mariadbd',
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--pid-file=${join(dir, 'mariadb.pid')}`,
      `--port=${port}`,
      `--bind-address=${host}`,
      '--user=mysql',
      '--skip-name-resolve',
      `--log-error=${join(dir, 'error.log')}`,
    ],
    { stdout: 'ignore', stderr: 'ignore' },
  )
  const password = `Adm1n-${crypto.randomUUID()}`
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      const root = await mysql.createConnection({ socketPath: socket, user: 'root' })
      await root.query('CREATE USER ?@? IDENTIFIED BY ?', ['plinth', host, password])
      await root.query('GRANT ALL PRIVILEGES ON *.* TO ?@? WITH GRANT OPTION', ['plinth', host])
      await root.end()
      break
    } catch (error) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`The test's MariaDB did not start: ${(error as Error).message}`)
      await Bun.sleep(200)
    }
  }
  return {
    host,
    port,
    username: 'plinth',
    password,
    async stop() {
      server.kill('SIGTERM')
      await server.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
