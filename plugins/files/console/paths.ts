// Site paths as the files API names them (absolute, `/` is the site's home) and the app addresses of the pages
// that show them, so a folder or a file being edited can be reloaded and shared.

/** The path of `name` inside the folder `dir`. */
export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`
}

/** The folder holding `path` (`/` for a top-level entry). */
export function parentOf(path: string): string {
  const cut = path.replace(/\/+$/, '').lastIndexOf('/')
  return cut <= 0 ? '/' : path.slice(0, cut)
}

/** The last component of `path`. */
export function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').at(-1) ?? ''
}

/** A path from the address bar, made absolute and without trailing or repeated slashes (the API does the rest). */
export function cleanPath(raw: string | null): string {
  const parts = (raw ?? '/').split('/').filter(Boolean)
  return `/${parts.join('/')}`
}

/** Each folder from the home down to `path`, for breadcrumbs. */
export function foldersOf(path: string): { name: string; path: string }[] {
  const parts = path.split('/').filter(Boolean)
  return [
    { name: 'Home', path: '/' },
    ...parts.map((name, index) => ({ name, path: `/${parts.slice(0, index + 1).join('/')}` })),
  ]
}

/** The archive format a name says, or null when it is not one the API extracts. */
export function archiveFormatOf(name: string): 'zip' | 'tar.gz' | null {
  const lower = name.toLowerCase()
  if (lower.endsWith('.zip')) return 'zip'
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz'
  return null
}

/** The name of an archive without its extension: where it is extracted by default. */
export function withoutArchiveExtension(name: string): string {
  return name.replace(/\.(zip|tar\.gz|tgz)$/i, '') || name
}

const site = (siteId: string) => `/sites/${encodeURIComponent(siteId)}`

/** The file manager showing the folder `dir`. */
export function folderPage(siteId: string, dir: string): string {
  return dir === '/' ? `${site(siteId)}/files` : `${site(siteId)}/files?path=${encodeURIComponent(dir)}`
}

/** The editor of the file at `path`. */
export function editorPage(siteId: string, path: string): string {
  return `${site(siteId)}/files/edit?path=${encodeURIComponent(path)}`
}

/** The API path of a site's files, for what the typed client cannot send (raw bodies, headers it does not know). */
export function filesApi(siteId: string, rest: string): string {
  return `${site(siteId)}/files${rest}`
}
