// What a document root may be: a relative folder under `htdocs/`, of safe names (the node checks the same again).

/** One folder name: letters, digits, `_`, `.`, `-`, not starting with a dot (so no `..`, no `.git`). */
const segment = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/

/** Whether `root` may be a site's document root (empty: `htdocs/` itself). */
export function isDocumentRoot(root: string): boolean {
  if (root === '') return true
  const parts = root.split('/')
  return root.length <= 200 && parts.length <= 8 && parts.every((part) => segment.test(part))
}
