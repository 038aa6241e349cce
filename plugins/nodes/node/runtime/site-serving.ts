// The members of a site's serving that say where its files are and whether PHP runs (`root`, `php`, `phpVersion`,
// `phpSettings`): checked on the node before they reach nginx's or PHP-FPM's files, and read by the server block and
// the site's master.

import { join } from 'node:path'
import type { SiteSpec } from '../contract.ts'
import { phpSettingsProblem } from './php-settings.ts'
import { phpVersionPattern } from './php-versions.ts'

/** One folder of a document root: letters, digits, `_`, `.`, `-`, not starting with a dot (no `..`, no `.git`). */
const rootSegment = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/
const maxRootSegments = 8

/** Whether `root` is a document root a site may have (relative, under `htdocs/`, nothing to escape). */
export function isSafeDocumentRoot(root: string): boolean {
  if (root === '') return true
  const segments = root.split('/')
  return segments.length <= maxRootSegments && segments.every((segment) => rootSegment.test(segment))
}

/** Why the site's serving cannot be laid out (for `checkSiteSpec`), or null. */
export function phpServingProblem(site: SiteSpec): string | null {
  const serving = site.serving
  if (serving === undefined) return null
  if (typeof serving !== 'object' || serving === null) return 'its serving is not an object'
  if (serving.root !== undefined && !(typeof serving.root === 'string' && isSafeDocumentRoot(serving.root)))
    return 'its document root is not a relative folder of safe names under htdocs/'
  if (serving.php !== undefined && typeof serving.php !== 'boolean')
    return 'its serving says PHP neither on nor off'
  if (
    serving.phpVersion !== undefined &&
    !(typeof serving.phpVersion === 'string' && phpVersionPattern.test(serving.phpVersion))
  )
    return 'its PHP version is not a version (8.2)'
  return serving.phpSettings === undefined ? null : phpSettingsProblem(serving.phpSettings)
}

/** Whether the site's `.php` files run (through its own master): false for a site served by nginx alone. */
export const servesPhp = (site: Pick<SiteSpec, 'serving'>): boolean => site.serving?.php !== false

/** The site's document root: `htdocs/` or the folder under it its serving names. */
export const documentRoot = (htdocs: string, site: Pick<SiteSpec, 'serving'>): string =>
  site.serving?.root ? join(htdocs, site.serving.root) : htdocs

/**
 * The server block's lines naming the site's files: its document root and index files. A site without PHP never
 * names `index.php` (its source would be sent), and answers 404 for every `.php` path: never run, never sent.
 */
export function documentLines(site: Pick<SiteSpec, 'serving'>, htdocs: string, php: boolean): string[] {
  const root = [`root "${documentRoot(htdocs, site)}";`]
  if (!php) return [...root, 'index index.html index.htm;']
  return [...root, 'index index.php index.html;', ...phpLimitLines(site)]
}

/**
 * nginx's own limits made to match the site's PHP (values checked by `checkSiteSpec`): a body as large as its
 * `post_max_size` (nginx's default is 64 MB), and an answer awaited as long as its `max_execution_time` and 10 s.
 */
function phpLimitLines(site: Pick<SiteSpec, 'serving'>): string[] {
  const settings = site.serving?.phpSettings ?? {}
  const lines: string[] = []
  const post = settings.post_max_size
  if (post && /^[1-9][0-9]{0,6}[KMG]?$/.test(post)) lines.push(`client_max_body_size ${post};`)
  const seconds = Number(settings.max_execution_time)
  if (Number.isSafeInteger(seconds) && seconds > 0) lines.push(`fastcgi_read_timeout ${seconds + 10}s;`)
  return lines
}

/** A site served without PHP: its `.php` paths answer 404, their source never sent. */
export const phpRefusedLines = (): string[] => ['location ~ \\.php$ {', '    return 404;', '}']
