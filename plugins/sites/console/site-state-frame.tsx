// The frame of a site's pages that work in it (its files, its terminal): the heading, the site's tabs, and a notice when the site is not
// in a state where its files can be reached (so the user learns why before the API refuses).

import type { ReactNode } from 'react'
import { ErrorNotice, Loading, PageHeader } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { SiteTabs } from './site-frame.tsx'
import { useSite } from './use-site.ts'

type Site = Schemas['Site']

function SiteStateNotice({ site }: { site: Site }) {
  if (site.status === 'active') return null
  const text =
    site.status === 'suspended'
      ? 'This site is suspended: its files and shell are unavailable until it is unsuspended.'
      : site.status === 'provisioning'
        ? 'This site is still being set up: its files are available once it is active.'
        : site.status === 'deleting'
          ? 'This site is being deleted.'
          : `Setting up this site failed${site.error ? ` (${site.error.message})` : ''}: its files are unavailable until it is set up again from its page.`
  return (
    <div className="notice notice-info" role="status">
      <p>{text}</p>
    </div>
  )
}

/** A page working in the site `siteId`: `children` gets the site once it is read. */
export function SiteStateFrame({
  siteId,
  title,
  children,
}: {
  siteId: string
  title: string
  children: (site: Site) => ReactNode
}) {
  const site = useSite(siteId)
  if (site.isPending) return <Loading />
  if (site.isError)
    return (
      <>
        <PageHeader title={title} />
        <ErrorNotice error={site.error} />
      </>
    )
  return (
    <>
      <PageHeader title={title} subtitle={`${site.data.name} · ${site.data.domain}`} />
      <SiteTabs site={site.data} />
      <SiteStateNotice site={site.data} />
      {children(site.data)}
    </>
  )
}
