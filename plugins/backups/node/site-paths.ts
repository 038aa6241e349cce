// Site paths as a restore names them (`/htdocs/wp-content/uploads`, as the files API does): checked strictly (absolute
// within the site, no `..`, no NUL nor control character) and placed under what a restore may change.

import { hasControlCharacter } from './control-characters.ts'
import { RunFailure } from './run-failure.ts'

/** What a restore of the site's files replaces: the folders of the home its user owns and writes. */
export const restorableRoots = ['/htdocs'] as const

/** `input` as a clean site path (`/htdocs/a/b`), or a refusal. */
export function checkedSitePath(input: unknown): string {
  const refuse = (why: string) =>
    new RunFailure('restore_failed', `${JSON.stringify(String(input).slice(0, 200))} ${why}`)
  if (typeof input !== 'string' || !input.startsWith('/'))
    throw refuse('is not a path from the site’s root (/).')
  if (Buffer.byteLength(input) > 4096) throw refuse('is too long.')
  if (hasControlCharacter(input)) throw refuse('holds a control character.')
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.includes('..')) throw refuse('climbs with “..”.')
  return `/${segments.join('/')}`
}

/** Whether `path` is `root` or inside it. */
export const within = (root: string, path: string) => path === root || path.startsWith(`${root}/`)

/** A restore's path checked to be one it may replace. */
export function restorablePath(input: unknown): string {
  const path = checkedSitePath(input)
  if (!restorableRoots.some((root) => within(root, path)))
    throw new RunFailure(
      'restore_failed',
      `${path} is not among what a restore replaces (${restorableRoots.join(', ')}).`,
    )
  return path
}

/** A path as an rsync filter rule that matches it alone (anchored at the transfer's root; wildcards escaped). */
export function rsyncLiteral(relative: string): string {
  return /[*?[]/.test(relative) ? `/${relative.replace(/[*?[\\]/g, (char) => `\\${char}`)}` : `/${relative}`
}
