// The frame of every page of one site: the way back to the list, the heading, the tabs, and the site once read
// (or why it could not be).

import type { ReactNode } from 'react'
import type { Schemas } from '../../api/client.ts'
import { Breadcrumbs, PageHeader } from '../../components/page.tsx'
import { ErrorNotice, Loading } from '../../components/states.tsx'
import { type SiteTab, SiteTabs } from './site-tabs.tsx'
import { useSite } from './use-site.ts'

/** Titles of the pages under a site (the overview's title is the site's name alone). */
const titles: Readonly<Record<SiteTab, string>> = {
  overview: '',
  files: 'Files',
  terminal: 'Terminal',
  certificate: 'Certificate',
  sftp: 'SFTP accounts',
  wordpress: 'WordPress',
}

export function SiteFrame({
  id,
  current,
  actions,
  children,
}: {
  id: string
  current: SiteTab
  actions?: (site: Schemas['Site']) => ReactNode
  children: (site: Schemas['Site']) => ReactNode
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
  const title = titles[current] ? `${titles[current]} · ${site.data.name}` : site.data.name
  return (
    <>
      {crumbs}
      <PageHeader title={title} subtitle={site.data.domain} actions={actions?.(site.data)} />
      <SiteTabs site={site.data} current={current} />
      {children(site.data)}
    </>
  )
}
