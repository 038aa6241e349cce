// The page a new static site serves until its content arrives.

import type { SiteSpec } from '../contract.ts'

/** Marks the placeholder page, so a domain change may rewrite it but never a page the customer uploaded. */
export const placeholderMarker = '<meta name="generator" content="plinth-placeholder">'

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => htmlEscapes[char] ?? char)

/** The placeholder of `site`: it names the domain. */
export function placeholderPage(site: SiteSpec): string {
  const domain = escapeHtml(site.domain)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${placeholderMarker}
<title>${domain}</title>
</head>
<body>
<h1>${domain}</h1>
<p>This site is ready on its server. Upload its content to replace this page.</p>
</body>
</html>
`
}
