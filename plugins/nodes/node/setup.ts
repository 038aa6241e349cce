// `node setup`: installs from Debian what a serving node needs (nginx, PHP-FPM and what each node module of the
// install declares: WordPress, MariaDB's server, the sandbox and archive tools), without starting any system service
// (the node runs its own nginx, PHP-FPM and MariaDB), and says what it did. `npm run panel -- node setup` runs it for
// the local node, `npm run agent -- setup` on a remote one.

import { existsSync, rmSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { NodeModule } from './contract.ts'

/**
 * What serving needs whatever the modules: nginx, PHP-FPM with the CLI of its version, bubblewrap (each site's
 * PHP-FPM master runs in a sandbox of its own), e2fsprogs (mkfs.ext4, resize2fs, e2fsck, chattr) and mount (losetup,
 * mount) for the filesystem image of each site with a disk quota.
 */
export const servingPackages = ['nginx', 'php-fpm', 'php-cli', 'bubblewrap', 'e2fsprogs', 'mount'] as const

/** Where `node setup` looks, what it runs, and where Debian's policy file that holds services back goes. */
export interface SetupOptions {
  /** The install's root, whose `plugins/*` and `examples/*` node modules say what they need. */
  readonly installRoot: string
  /** The environment of the commands it runs (`PATH`). Default the process's. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Debian's `policy-rc.d`, which says no to starting services while it installs. Default `/usr/sbin/policy-rc.d`. */
  readonly policyPath?: string
  /** Whether it runs as root. Default: the process's user says. */
  readonly asRoot?: boolean
}

/** A refusal `node setup` explains (not root, no apt-get, an install that failed). */
export class SetupError extends Error {}

/** The node modules of the install: each `plugins/<name>/node/index.ts` and `examples/<name>/node/index.ts`. */
export async function installedModules(root: string): Promise<NodeModule<never>[]> {
  const found: NodeModule<never>[] = []
  for (const path of new Bun.Glob('{plugins,examples}/*/node/index.ts').scanSync({ cwd: root })) {
    const module = ((await import(join(root, path))) as { default?: NodeModule<never> }).default
    if (module && typeof module.create === 'function') found.push(module)
  }
  return found.sort((a, b) => a.name.localeCompare(b.name))
}

/** The packages a node of this install needs: serving's and every module's, each once, sorted. */
export function packagesOf(modules: readonly NodeModule<never>[]): string[] {
  return [...new Set([...servingPackages, ...modules.flatMap((module) => module.packages ?? [])])].sort()
}

/** Runs a command to its end. */
async function run(argv: readonly string[], env: Readonly<Record<string, string | undefined>>) {
  const child = Bun.spawn([...argv], { env: { ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** Which of `packages` dpkg says are installed. */
async function installedOf(
  packages: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<Set<string>> {
  // dpkg-query's own field names, not template placeholders.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format, in its own words.
  const answer = await run(['dpkg-query', '-W', '-f=${Package} ${db:Status-Abbrev}\n', ...packages], env)
  const installed = new Set<string>()
  for (const line of answer.stdout.split('\n')) {
    const [name, status] = line.trim().split(/\s+/)
    if (name && status?.startsWith('ii')) installed.add(name)
  }
  return installed
}

/** The system services enabled at boot, by unit name; none without systemctl. */
async function enabledServices(env: Readonly<Record<string, string | undefined>>): Promise<Set<string>> {
  if (!onPath('systemctl', env)) return new Set()
  const listed = await run(
    ['systemctl', 'list-unit-files', '--state=enabled', '--type=service', '--no-legend'],
    env,
  )
  return new Set(
    listed.stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0] ?? '')
      .filter((unit) => unit.endsWith('.service')),
  )
}

/**
 * Runs `install` with Debian's `policy-rc.d` saying no to starting any service (101), then removes it, also when
 * the install is interrupted (Ctrl-C, SIGTERM): one left behind would keep every later install from starting its
 * services. A policy already there (Docker's) is left as it is.
 */
async function withServicesHeld(policy: string, install: () => Promise<void>): Promise<void> {
  if (existsSync(policy)) return install()
  await writeFile(
    policy,
    '#!/bin/sh\n# Written by Plinth’s node setup while it installs packages: start no service.\nexit 101\n',
    {
      mode: 0o755,
    },
  )
  const interrupted = (signal: NodeJS.Signals) => {
    rmSync(policy, { force: true })
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', interrupted)
  process.once('SIGTERM', interrupted)
  try {
    await install()
  } finally {
    process.off('SIGINT', interrupted)
    process.off('SIGTERM', interrupted)
    await rm(policy, { force: true })
  }
}

/** Whether `name` runs from `env`'s PATH. */
function onPath(name: string, env: Readonly<Record<string, string | undefined>>): boolean {
  return (env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, name)))
}

/**
 * Installs what is missing and answers what it did, a line each. Throws a {@link SetupError} naming the packages
 * when it cannot (not root, no apt-get, apt-get failed).
 */
export async function setupNode(options: SetupOptions): Promise<string[]> {
  const env = options.env ?? process.env
  const modules = await installedModules(options.installRoot)
  const packages = packagesOf(modules)
  const lines = [
    `Node modules of this install (${options.installRoot}): ${modules.map((module) => module.name).join(', ') || 'none'}`,
    `A serving node needs: ${packages.join(' ')}`,
  ]
  const before = await installedOf(packages, env)
  const missing = packages.filter((name) => !before.has(name))
  if (missing.length === 0) return [...lines, 'Everything is installed already: nothing to do.']
  if (!(options.asRoot ?? process.getuid?.() === 0))
    throw new SetupError(`Installing ${missing.join(' ')} needs root: run it again as root (sudo).`)
  if (!onPath('apt-get', env))
    throw new SetupError(
      `This machine has no apt-get: install ${missing.join(' ')} with its own package manager.`,
    )
  lines.push(
    `Installing from Debian: ${missing.join(' ')} (system services are not started: the node runs its own)`,
  )
  const enabledBefore = await enabledServices(env)
  await withServicesHeld(options.policyPath ?? '/usr/sbin/policy-rc.d', async () => {
    const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' }
    let installed = await run(['apt-get', 'install', '-y', ...missing], aptEnv)
    if (installed.code !== 0) {
      // The package lists may be missing or stale on a fresh machine.
      await run(['apt-get', 'update'], aptEnv)
      installed = await run(['apt-get', 'install', '-y', ...missing], aptEnv)
    }
    if (installed.code !== 0)
      throw new SetupError(
        `apt-get could not install ${missing.join(' ')} (exit ${installed.code}): ${(installed.stderr.trim() || installed.stdout.trim()).slice(-1500)}`,
      )
  })
  // Debian enables what it installs (nginx, mariadb, php-fpm): a reboot would start them, and the system nginx would
  // take the port the node's serves on. What this run enabled is disabled again; what was enabled before is left.
  const enabledNow = await enabledServices(env)
  const added = [...enabledNow].filter((unit) => !enabledBefore.has(unit)).sort()
  if (added.length > 0) {
    await run(['systemctl', 'disable', ...added], env)
    lines.push(`Disabled the system services it brought (the node runs its own): ${added.join(' ')}`)
  }
  const after = await installedOf(packages, env)
  const still = packages.filter((name) => !after.has(name))
  if (still.length > 0) throw new SetupError(`Still missing after installing: ${still.join(' ')}`)
  return [...lines, `Installed: ${missing.join(' ')}`, 'Everything a serving node needs is installed.']
}
