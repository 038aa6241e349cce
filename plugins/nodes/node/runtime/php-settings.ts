// A site's own `php.ini` values (`SiteServing.phpSettings`) as its node takes them: only names from the node's
// allowlist, each value of its kind's shape (a size, a whole number, on or off), rendered as `php_admin_value` and
// `php_admin_flag` lines of its pool, which the site's code cannot change with `ini_set`. The panel checks the same
// and more (ranges, its plan's caps); the node checks again, trusting nothing.

import type { SiteSpec } from '../contract.ts'

/** How a setting's value is written: a size (`256M`), a whole number (`-1` to 9999999), or a flag (`on`, `off`). */
export type PhpSettingKind = 'size' | 'integer' | 'flag'

/** The settings a site may set, by name, with their kind. */
export const phpSettingKinds: Readonly<Record<string, PhpSettingKind>> = {
  memory_limit: 'size',
  upload_max_filesize: 'size',
  post_max_size: 'size',
  max_execution_time: 'integer',
  max_input_time: 'integer',
  max_input_vars: 'integer',
  max_file_uploads: 'integer',
  display_errors: 'flag',
}

/** What every site's pool sets unless the site sets its own (what sites were always served with). */
export const phpPoolDefaults: Readonly<Record<string, string>> = {
  upload_max_filesize: '64M',
  post_max_size: '64M',
}

const valuePatterns: Readonly<Record<PhpSettingKind, RegExp>> = {
  size: /^[1-9][0-9]{0,6}[KMG]?$/,
  integer: /^(?:-1|0|[1-9][0-9]{0,6})$/,
  flag: /^(?:on|off)$/,
}

/** Why `settings` cannot be written into a pool, or null when every name is allowed and every value of its shape. */
export function phpSettingsProblem(settings: unknown): string | null {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    return 'its PHP settings are not an object'
  for (const [name, value] of Object.entries(settings)) {
    const kind = Object.hasOwn(phpSettingKinds, name) ? phpSettingKinds[name] : undefined
    if (!kind) return `its PHP setting ${JSON.stringify(name.slice(0, 64))} is not one a site may set`
    if (typeof value !== 'string' || !valuePatterns[kind].test(value))
      return `its PHP setting ${name} is not a ${kind === 'flag' ? 'flag (on or off)' : kind}`
  }
  return null
}

/** The pool's lines for the site's settings over the defaults (checked by `checkSiteSpec` before). */
export function phpSettingLines(site: Pick<SiteSpec, 'serving'>): string[] {
  const values = { ...phpPoolDefaults, ...(site.serving?.phpSettings ?? {}) }
  return Object.entries(values)
    .filter(([name]) => Object.hasOwn(phpSettingKinds, name))
    .map(([name, value]) =>
      phpSettingKinds[name] === 'flag'
        ? `php_admin_flag[${name}] = ${value}`
        : `php_admin_value[${name}] = ${value}`,
    )
}
