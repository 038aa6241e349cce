// Checks of a command and its working directory, shared by the API (422 with codes) and the node service (which
// checks again what it is sent).

import { argvLimits } from './node/protocol.ts'

/** Directories a command may start in, as the site sees them. */
const roots = ['/htdocs', '/tmp', '/logs']

/** The argv, or what is wrong with it. */
export function checkArgv(value: unknown): string[] | string {
  if (!Array.isArray(value) || value.length < 1 || value.length > argvLimits.items) return 'argv'
  let total = 0
  for (const item of value) {
    if (typeof item !== 'string' || item.length > argvLimits.itemChars || item.includes('\0')) return 'argv'
    total += item.length
  }
  if (total > argvLimits.totalChars || (value[0] as string).length === 0) return 'argv'
  return value as string[]
}

/**
 * The working directory normalised (`/htdocs/a/./b/` is `/htdocs/a/b`), or null when it has NUL or control
 * characters, climbs with `..` above its root, or lies outside `/htdocs`, `/tmp` and `/logs`. Default `/htdocs`.
 */
export function siteDirectory(value: unknown): string | null {
  if (value === undefined) return '/htdocs'
  if (typeof value !== 'string' || !value.startsWith('/') || value.length > 4096) return null
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(value)) return null
  const parts: string[] = []
  for (const part of value.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') return null
    parts.push(part)
  }
  const path = `/${parts.join('/')}`
  return roots.some((root) => path === root || path.startsWith(`${root}/`)) ? path : null
}
