// Debian packages the backups tests' peers need (openssh-server's sshd, restic), installed when missing: a missing
// one fails the test saying what to run, never skips it.

import { accessSync, constants } from 'node:fs'

const installing = new Map<string, Promise<void>>()

/**
 * Makes sure `path` exists, installing the Debian package `name` with apt-get when it does not (once per process).
 * @example await ensureDebianPackage('/usr/sbin/sshd', 'openssh-server')
 */
export function ensureDebianPackage(path: string, name: string): Promise<void> {
  let pending = installing.get(path)
  if (!pending) {
    pending = install(path, name)
    installing.set(path, pending)
  }
  return pending
}

async function install(path: string, name: string): Promise<void> {
  if (executable(path)) return
  const how = `Install it as root with \`apt-get install -y ${name}\`.`
  if (process.getuid?.() !== 0 || !executable('/usr/bin/apt-get'))
    throw new Error(`The backups tests need ${path} (Debian's ${name}), and it is missing. ${how}`)
  let attempt = await aptGet(['install', '-y', name])
  // A fresh machine has no package lists yet, or stale ones naming versions the mirror no longer has.
  if (attempt.code !== 0) {
    const update = await aptGet(['update'])
    attempt = update.code === 0 ? await aptGet(['install', '-y', name]) : update
  }
  if (attempt.code !== 0 || !executable(path))
    throw new Error(`apt-get could not install ${name} (exit ${attempt.code}). ${how}\n${attempt.output}`)
}

async function aptGet(args: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(['apt-get', ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, output: `${stdout}${stderr}`.slice(-4000) }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
