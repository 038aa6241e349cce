// `node setup`: installs from Debian what a serving node needs (nginx, PHP-FPM and what each node module of the
// install declares: WordPress, MariaDB's server, the sandbox and archive tools), without starting any system service
// (the node runs its own nginx, PHP-FPM and MariaDB), and says what it did. `npm run panel -- node setup` runs it for
// the local node, `npm run agent -- setup` on a remote one.

import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { NodeModule } from './contract.ts'

/** What serving needs whatever the modules: nginx, and PHP-FPM with the CLI of its version. */
export const servingPackages = ['nginx', 'php-fpm', 'php-cli'] as const

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
    `Node modules of ${relative(process.cwd(), options.installRoot) || '.'}: ${modules.map((module) => module.name).join(', ') || 'none'}`,
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
  const policy = options.policyPath ?? '/usr/sbin/policy-rc.d'
  // invoke-rc.d asks policy-rc.d whether to start a service; 101 says no. One already there is left as it is.
  const ours = !existsSync(policy)
  if (ours)
    await writeFile(
      policy,
      '#!/bin/sh\n# Written by Plinth’s node setup while it installs packages: start no service.\nexit 101\n',
      {
        mode: 0o755,
      },
    )
  try {
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
  } finally {
    if (ours) await rm(policy, { force: true })
  }
  const after = await installedOf(packages, env)
  const still = packages.filter((name) => !after.has(name))
  if (still.length > 0) throw new SetupError(`Still missing after installing: ${still.join(' ')}`)
  return [...lines, `Installed: ${missing.join(' ')}`, 'Everything a serving node needs is installed.']
}
