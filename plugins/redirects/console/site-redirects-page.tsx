// `/sites/:id/redirects`: the site's redirects (added, changed, deleted) and its response headers (edited as a list).

import { Section, useSession } from '../../console/kit.ts'
import { SiteFrame, type SiteSchemas } from '../../sites/console/contract.ts'
import { HeadersForm } from './headers-form.tsx'
import { RedirectList } from './redirect-list.tsx'

type Site = SiteSchemas['Site']

function Content({ site }: { site: Site }) {
  const session = useSession()
  const editable = session.can('site:update')
  return (
    <>
      <Section title="Redirects">
        <p className="hint">
          An exact path wins over a prefix, and the longest prefix over shorter ones, whatever the order
          below. The request’s query string goes along unless the target has one.
        </p>
        <RedirectList site={site} editable={editable} />
      </Section>
      <Section title="Response headers">
        <HeadersForm site={site} editable={editable} />
      </Section>
    </>
  )
}

export function SiteRedirectsPage({ id }: { id: string }) {
  return (
    <SiteFrame id={id} title="Redirects and headers">
      {(site) => <Content site={site} />}
    </SiteFrame>
  )
}
