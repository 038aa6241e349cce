// The small default index a new `php` or `static` site serves until its owner puts their own files in its root.

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => htmlEscapes[char] ?? char)

/** The file name of a kind's default index. */
export const defaultIndexName = (kind: 'php' | 'static') => (kind === 'php' ? 'index.php' : 'index.html')

/** The default index of a site at `domain`: PHP says its version (so its owner sees PHP runs). */
export function defaultIndex(kind: 'php' | 'static', domain: string): string {
  const name = escapeHtml(domain)
  const runs =
    kind === 'php'
      ? '<p>PHP <?= htmlspecialchars(PHP_VERSION) ?> runs this page. Replace index.php with your own files.</p>'
      : '<p>This site is served as plain files. Replace index.html with your own.</p>'
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="plinth-default-index">
<title>${name}</title>
</head>
<body>
<h1>${name}</h1>
${runs}
</body>
</html>
`
}
