// The frame of every page of one site: the way back to the list, the heading, the site's tabs (every plugin's that
// adds one to `/sites/:id`), and the site once read (or why it could not be).

import type { ReactNode } from 'react'
import { Breadcrumbs, ErrorNotice, Loading, PageHeader, PageTabs } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { useSite } from './use-site.ts'

type Site = Schemas['Site']

/**
 * A page of the site `id`: `title` names the tab (none for the overview, titled by the site's name alone), and
 * `children` gets the site once it is read.
 */
export function SiteFrame({
  id,
  title,
  actions,
  children,
}: {
  id: string
  title?: string
  actions?: (site: Site) => ReactNode
  children: (site: Site) => ReactNode
}) {
  const site = useSite(id)
  const crumbs = <Breadcrumbs to="/sites" label="Sites" here={site.data?.name ?? id} />
  if (site.isPending)
    return (
      <>
        {crumbs}
        <PageHeader title="Site" />
        <Loading />
      </>
    )
  if (site.isError)
    return (
      <>
        {crumbs}
        <PageHeader title="Site" />
        <ErrorNotice error={site.error} />
      </>
    )
  return (
    <>
      {crumbs}
      <PageHeader
        title={title ? `${title} · ${site.data.name}` : site.data.name}
        subtitle={site.data.domain}
        actions={actions?.(site.data)}
      />
      <SiteTabs site={site.data} />
      {children(site.data)}
    </>
  )
}

/** The tabs of `site`'s pages. */
export function SiteTabs({ site }: { site: Site }) {
  return <PageTabs of="/sites/:id" params={{ id: site.id }} subject={site} label="Site pages" />
}
