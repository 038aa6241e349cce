// A real OpenSSH sshd serving SFTP for the backups tests: its own host key, a Unix user of its own (a unique name)
// jailed in a root-owned chroot, key auth only with a generated ed25519 key. Debian's openssh-server, installed when
// missing. Several test files run at once: each server has its own port, user and folder.

import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { freePort } from '../../../hosts/testing/index.ts'
import { ensureDebianPackage } from './debian-packages.ts'

const sshd = '/usr/sbin/sshd'
/** ChrootDirectory needs every component root-owned and writable by no one else: not under /tmp. */
const base = '/var/lib/plinth-test-sftp'

/** An ed25519 key pair in OpenSSH's formats. */
export interface SshKeyPair {
  /** `-----BEGIN OPENSSH PRIVATE KEY-----…` */
  readonly privateKey: string
  /** `ssh-ed25519 AAAA… comment` */
  readonly publicKey: string
}

/** A running SFTP server. */
export interface SftpPeer {
  readonly host: string
  readonly port: number
  readonly username: string
  /** A folder the user may write, as the server shows it (`/repos`): repositories go below it. */
  readonly path: string
  /** The user's private key (OpenSSH). */
  readonly privateKey: string
  /** The server's host key as one `known_hosts` line (`[127.0.0.1]:port ssh-ed25519 AAAA…`). */
  readonly knownHosts: string
  /** The folder on this machine that `path` is. */
  readonly folder: string
  /** Stops sshd: connections to its port are refused until {@link SftpPeer.resume}. */
  refuse(): Promise<void>
  /** Starts sshd again on the same port with the same keys. */
  resume(): Promise<void>
  /** Stops sshd and removes its user and folders. */
  close(): Promise<void>
}

/** A fresh ed25519 key pair from ssh-keygen. */
export async function generateSshKey(comment = 'plinth-test'): Promise<SshKeyPair> {
  const dir = join(base, `key-${crypto.randomUUID()}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  try {
    const file = join(dir, 'id_ed25519')
    run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file])
    return { privateKey: readFileSync(file, 'utf8'), publicKey: readFileSync(`${file}.pub`, 'utf8').trim() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Starts an SFTP server on a free port of 127.0.0.1 for a new user, whose only key is a fresh ed25519 one.
 * @example const peer = await startSftpServer(); … await peer.close()
 */
export async function startSftpServer(): Promise<SftpPeer> {
  await ensureDebianPackage(sshd, 'openssh-server')
  const username = `plb${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
  const dir = join(base, username)
  const chroot = join(dir, 'root')
  const folder = join(chroot, 'repos')
  mkdirSync(base, { recursive: true, mode: 0o755 })
  chmodSync(base, 0o755)
  mkdirSync(folder, { recursive: true, mode: 0o755 })
  chmodSync(dir, 0o755)
  chmodSync(chroot, 0o755)
  // sshd's privilege separation needs its empty folder, which only the system service makes.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })

  addUser(username)
  const uid = Number(run(['id', '-u', username]).trim())
  const gid = Number(run(['id', '-g', username]).trim())
  chownSync(folder, uid, gid)
  chmodSync(folder, 0o700)

  const hostKey = join(dir, 'host_ed25519')
  run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', hostKey])
  const client = await generateSshKey(username)
  writeFileSync(join(dir, 'authorized_keys'), `${client.publicKey}\n`, { mode: 0o644 })

  const port = freePort()
  const config = join(dir, 'sshd_config')
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      'PidFile none',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      // The key files live in this root-owned folder; StrictModes would also walk up through /var/lib.
      'StrictModes no',
      'PermitRootLogin no',
      `AllowUsers ${username}`,
      `ChrootDirectory ${chroot}`,
      'ForceCommand internal-sftp',
      'Subsystem sftp internal-sftp',
      'MaxStartups 100:30:200',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  )
  const hostPublic = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')
  const knownHosts = `[127.0.0.1]:${port} ${hostPublic}`

  let daemon: ReturnType<typeof Bun.spawn> | null = null
  const start = async () => {
    daemon = Bun.spawn([sshd, '-D', '-e', '-f', config], { stdout: 'ignore', stderr: 'ignore' })
    await untilListening(port, daemon)
  }
  const halt = async () => {
    const running = daemon
    daemon = null
    if (!running) return
    running.kill('SIGTERM')
    await running.exited
  }
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await halt()
    removeUser(username)
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', () => {
    if (closed) return
    ;(daemon as ReturnType<typeof Bun.spawn> | null)?.kill('SIGKILL')
    removeUser(username)
    rmSync(dir, { recursive: true, force: true })
  })
  await start()
  return {
    host: '127.0.0.1',
    port,
    username,
    path: '/repos',
    privateKey: client.privateKey,
    knownHosts,
    folder,
    refuse: halt,
    resume: start,
    close,
  }
}

/** Adds a locked-out-of-passwords (`*`, not `!`: sshd refuses `!` accounts even keys) user without a home. */
function addUser(username: string): void {
  // Other test files add users at the same moment: useradd then finds /etc/passwd locked (exit 10) and is retried.
  for (let attempt = 0; ; attempt++) {
    const added = spawnSync(
      'useradd',
      [
        '--system',
        '--no-create-home',
        '--home-dir',
        '/',
        '--shell',
        '/usr/sbin/nologin',
        '-p',
        '*',
        username,
      ],
      { encoding: 'utf8' },
    )
    if (added.status === 0) return
    if (attempt >= 100) throw new Error(`useradd ${username} failed: ${added.stderr}`)
    Bun.sleepSync(50 + Math.random() * 100)
  }
}

function removeUser(username: string): void {
  for (let attempt = 0; attempt < 100; attempt++) {
    const removed = spawnSync('userdel', [username], { encoding: 'utf8' })
    // 6: no such user (already gone).
    if (removed.status === 0 || removed.status === 6) return
    Bun.sleepSync(50 + Math.random() * 100)
  }
}

function run(argv: string[]): string {
  const result = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed (${result.status}): ${result.stderr}`)
  return result.stdout
}

/** Waits until sshd accepts connections on `port` (it says its banner), or fails when it exits first. */
async function untilListening(port: number, daemon: ReturnType<typeof Bun.spawn>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (daemon.exitCode !== null) throw new Error(`sshd exited with ${daemon.exitCode} before listening`)
    if (await banner(port)) return
    await Bun.sleep(25)
  }
  throw new Error(`sshd did not listen on ${port} within 10 s`)
}

function banner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.setTimeout(2000)
    socket.once('data', (data) => {
      socket.destroy()
      resolve(data.toString().startsWith('SSH-'))
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('close', () => resolve(false))
  })
}
