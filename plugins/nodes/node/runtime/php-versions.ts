// The PHP versions a node's sites may choose: each a Debian `php-fpm<version>` binary (`/usr/sbin/php-fpm8.2`), the
// highest the default; a site's master runs its chosen version's binary.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { NodeFailure } from '../contract.ts'

/** The versions found, by version (`8.2`), each with its PHP-FPM binary; the default one (the highest) named. */
export interface PhpVersions {
  readonly binaries: ReadonlyMap<string, string>
  /** The version sites run when their spec names none; null when no versioned binary was found. */
  readonly defaultVersion: string | null
}

/** A PHP version as specs and capabilities name it: major and minor (`8.2`). */
export const phpVersionPattern = /^[0-9]{1,2}\.[0-9]{1,2}$/

const isExecutable = (path: string) => {
  try {
    const stats = statSync(path)
    return stats.isFile() && (stats.mode & 0o111) !== 0
  } catch {
    return false
  }
}

const byVersion = (a: string, b: string) => {
  const [a1, a2] = a.split('.').map(Number)
  const [b1, b2] = b.split('.').map(Number)
  return (a1 ?? 0) - (b1 ?? 0) || (a2 ?? 0) - (b2 ?? 0)
}

/**
 * The `php-fpm<major>.<minor>` binaries in the directories of `defaultBinary` and the system's, and `defaultBinary`
 * itself (the one the runtime found, the highest) when it names its version.
 */
export function findPhpVersions(defaultBinary: string | null): PhpVersions {
  const dirs = new Set(['/usr/sbin', '/usr/bin', '/usr/local/sbin'])
  if (defaultBinary) dirs.add(defaultBinary.slice(0, defaultBinary.lastIndexOf('/')) || '/')
  const binaries = new Map<string, string>()
  for (const dir of dirs) {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      const version = /^php-fpm([0-9]{1,2}\.[0-9]{1,2})$/.exec(name)?.[1]
      if (version && !binaries.has(version) && isExecutable(join(dir, name)))
        binaries.set(version, join(dir, name))
    }
  }
  const named = defaultBinary ? /php-fpm([0-9]{1,2}\.[0-9]{1,2})$/.exec(defaultBinary)?.[1] : undefined
  if (named && defaultBinary) binaries.set(named, defaultBinary)
  const sorted = [...binaries.keys()].sort(byVersion)
  return {
    binaries: new Map(sorted.map((version) => [version, binaries.get(version) as string])),
    defaultVersion: named ?? sorted.at(-1) ?? null,
  }
}

/**
 * The binary a site's master runs for `version` (absent: the default, `fallback` where no version is known); a
 * version the node lacks is a {@link NodeFailure} `php_version_unavailable`.
 */
export function phpBinaryFor(versions: PhpVersions, version: string | undefined, fallback: string): string {
  if (version === undefined)
    return versions.defaultVersion ? (versions.binaries.get(versions.defaultVersion) ?? fallback) : fallback
  const binary = versions.binaries.get(version)
  if (!binary)
    throw new NodeFailure(
      `This node has no PHP ${version} (it has ${[...versions.binaries.keys()].join(', ') || 'none'})`,
      'php_version_unavailable',
    )
  return binary
}

/** The line of a site's PHP-FPM configuration that records the version its master runs. */
export const versionLine = (version: string) => `; PHP version: ${version}`

/** The version a site's written configuration records (the one its master was started with), or undefined. */
export function recordedPhpVersion(conf: string): string | undefined {
  let text: string
  try {
    text = readFileSync(conf, 'utf8')
  } catch {
    return undefined
  }
  const version = /^; PHP version: (\S+)$/m.exec(text)?.[1]
  return version && phpVersionPattern.test(version) ? version : undefined
}
