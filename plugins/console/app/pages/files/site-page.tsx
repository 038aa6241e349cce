// The frame of a site's files and terminal pages: the heading, the site's tabs, and a notice when the site is not
// in a state where its files can be reached (so the user learns why before the API refuses).

import type { ReactNode } from 'react'
import type { Schemas } from '../../api/client.ts'
import { PageHeader } from '../../components/page.tsx'
import { ErrorNotice, Loading } from '../../components/states.tsx'
import { type SiteTab, SiteTabs } from '../sites/site-tabs.tsx'
import { useSite } from '../sites/use-site.ts'

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
          : 'Setting up this site failed: its files are unavailable.'
  return (
    <div className="notice notice-info" role="status">
      <p>{text}</p>
    </div>
  )
}

/** A page of the site `siteId`: `children` gets the site once it is read. */
export function SitePage({
  siteId,
  tab,
  title,
  children,
}: {
  siteId: string
  tab: SiteTab
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
      <SiteTabs site={site.data} current={tab} />
      <SiteStateNotice site={site.data} />
      {children(site.data)}
    </>
  )
}
