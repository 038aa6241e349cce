// What the local driver writes for a site, as text: the nginx server block (serving or suspended), the placeholder
// page and the state file. Pure functions; every value put in them was checked by `checkSiteSpec` first.

import type { SiteSpec } from '../contract.ts'

/** The state the local driver keeps for a site in `state.json`. */
export interface LocalSiteState {
  readonly siteId: string
  readonly handle: string
  readonly domain: string
  readonly type: string
  readonly customerId: string
  readonly nodeId: string
  readonly diskMB: number | null
  readonly state: 'active' | 'suspended'
  readonly updatedAt: string
}

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

/** The page a new site serves until its content arrives: it names the domain. */
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

/** The paths a server block names, all under the site's directory. */
export interface SitePaths {
  readonly documentRoot: string
  readonly logs: string
}

function header(site: SiteSpec, state: LocalSiteState['state']): string {
  const quota = site.diskMB === null ? 'unlimited' : `${site.diskMB} MB`
  return [
    `# Managed by Plinth for site ${site.id} (${site.handle}, customer ${site.customerId}).`,
    '# Rewritten on every change of the site: do not edit by hand.',
    `# State: ${state}${state === 'suspended' ? ' (every request answers 503)' : ''}`,
    `# Disk quota: ${quota}`,
  ].join('\n')
}

/**
 * The nginx server block of a site: serving its document root, or, suspended, answering every request with 503.
 * Paths are quoted (a data directory may contain spaces); the driver refuses directories nginx could misread.
 */
export function serverBlock(site: SiteSpec, paths: SitePaths, state: LocalSiteState['state']): string {
  const logs = [`    access_log "${paths.logs}/access.log";`, `    error_log "${paths.logs}/error.log";`]
  const body =
    state === 'suspended'
      ? ['    return 503;']
      : [
          `    root "${paths.documentRoot}";`,
          '    index index.php index.html;',
          '',
          '    location / {',
          '        try_files $uri $uri/ =404;',
          '    }',
        ]
  return `${header(site, state)}
server {
    listen 80;
    listen [::]:80;
    server_name ${site.domain};
${logs.join('\n')}
${body.join('\n')}
}
`
}

/** The contents of `state.json`. */
export function stateFile(state: LocalSiteState): string {
  return `${JSON.stringify(state, null, 2)}\n`
}

/** `state.json` read back, or null when it is missing or not one the driver wrote. */
export function parseStateFile(text: string): LocalSiteState | null {
  try {
    const value = JSON.parse(text) as Partial<LocalSiteState> | null
    if (value?.state !== 'active' && value?.state !== 'suspended') return null
    return value as LocalSiteState
  } catch {
    return null
  }
}
