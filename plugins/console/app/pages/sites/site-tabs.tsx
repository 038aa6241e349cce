// The row of tabs linking a site's pages; shared by every page under `/sites/:id` (files and terminal included).

import type { Schemas } from '../../api/client.ts'
import { Link } from '../../router.tsx'
import { useSession } from '../../session.tsx'

/** Which of a site's pages is showing. */
export type SiteTab = 'overview' | 'files' | 'terminal' | 'certificate' | 'sftp' | 'wordpress'

/** The tabs of `site`, `current` marked with `aria-current="page"`; tabs the caller cannot use are left out. */
export function SiteTabs({ site, current }: { site: Schemas['Site']; current: SiteTab }) {
  const session = useSession()
  const base = `/sites/${encodeURIComponent(site.id)}`
  const tabs: { key: SiteTab; label: string; to: string; shown: boolean }[] = [
    { key: 'overview', label: 'Overview', to: base, shown: true },
    { key: 'files', label: 'Files', to: `${base}/files`, shown: session.can('site:files') },
    { key: 'terminal', label: 'Terminal', to: `${base}/terminal`, shown: session.can('site:shell') },
    {
      key: 'certificate',
      label: 'Certificate',
      to: `${base}/certificate`,
      shown: session.can('certificate:read'),
    },
    // SFTP accounts reach the site's files, and WordPress operations run code in it: the API asks these scopes.
    { key: 'sftp', label: 'SFTP', to: `${base}/sftp`, shown: session.can('site:files') },
    {
      key: 'wordpress',
      label: 'WordPress',
      to: `${base}/wordpress`,
      shown: site.type === 'wordpress' && session.can('site:shell'),
    },
  ]
  return (
    <nav className="tabs" aria-label="Site pages">
      {tabs
        .filter((tab) => tab.shown)
        .map((tab) => (
          <Link key={tab.key} to={tab.to} aria-current={tab.key === current ? 'page' : undefined}>
            {tab.label}
          </Link>
        ))}
    </nav>
  )
}
