// Finds the programs the runtime serves with (nginx, PHP-FPM, the PHP CLI, bubblewrap) and their versions.

import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { NodePrograms } from '../contract.ts'
import { run } from './commands.ts'

/** The programs found on this machine; null where one is missing. */
export type Binaries = NodePrograms

/** Where programs are looked for: `PATH`, then the system directories a non-root `PATH` often lacks. */
function searchPath(): string[] {
  const dirs = (process.env.PATH ?? '').split(':').filter((dir) => dir.startsWith('/'))
  return [...new Set([...dirs, '/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin'])]
}

const isExecutable = (path: string) => {
  try {
    const stats = statSync(path)
    return stats.isFile() && (stats.mode & 0o111) !== 0
  } catch {
    return false
  }
}

/** The first executable called `name`. */
function which(name: string): string | null {
  for (const dir of searchPath()) if (isExecutable(join(dir, name))) return join(dir, name)
  return null
}

/** `php-fpm` or `php-fpm<version>`, the highest version first. */
function findPhpFpm(): string | null {
  const found: { path: string; version: number[] }[] = []
  for (const dir of searchPath()) {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      const match = /^php-fpm(\d+(?:\.\d+)*)?$/.exec(name)
      if (!match || !isExecutable(join(dir, name))) continue
      found.push({ path: join(dir, name), version: (match[1] ?? '0').split('.').map(Number) })
    }
  }
  found.sort((a, b) => compareVersions(b.version, a.version))
  return found[0]?.path ?? null
}

function compareVersions(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}

/** Looks for the programs (cheap: a few `stat`s). */
export function findBinaries(): Binaries {
  const phpFpm = findPhpFpm()
  const version = phpFpm ? /php-fpm(\d+\.\d+)$/.exec(phpFpm)?.[1] : undefined
  const php = (version ? which(`php${version}`) : null) ?? which('php')
  return {
    nginx: which('nginx'),
    phpFpm,
    php,
  }
}

/** Debian's bubblewrap (`bwrap`), the sandbox every site's PHP-FPM master runs in, or null. */
export const findSandbox = (): string | null => which('bwrap')

/** The versions of what was found, as `capabilities()` reports them. */
export async function versionsOf(binaries: Binaries): Promise<{ nginx: string | null; php: string | null }> {
  const nginx = binaries.nginx
    ? (/nginx\/(\S+)/.exec((await run([binaries.nginx, '-v'])).stderr)?.[1] ?? 'unknown')
    : null
  const php = binaries.phpFpm
    ? (/PHP (\S+)/.exec((await run([binaries.phpFpm, '-v'])).stdout)?.[1] ?? 'unknown')
    : null
  return { nginx, php }
}
