// Site handles: short, unique, safe as a system user or directory name on a node; derived from the site's name.

/** Longest handle, short enough to serve as a Linux user name with a suffix. */
export const handleMaxLength = 24

/** The handle a name suggests before uniqueness: `My Blog!` → `my-blog`, `Ça va` → `ca-va`, `2024` → `s-2024`. */
export function baseHandle(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  const started = /^[a-z]/.test(slug) ? slug : `s-${slug}`.replace(/-+$/, '')
  const base = started === 's' ? 'site' : started
  return base.slice(0, handleMaxLength).replace(/-+$/, '')
}

/** The first free handle: the base itself, else `base-2`, `base-3`, … trimmed to fit the length limit. */
export function firstFreeHandle(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = `${base.slice(0, handleMaxLength - suffix.length).replace(/-+$/, '')}${suffix}`
    if (!taken.has(candidate)) return candidate
  }
}
