// `/sites/:id/wordpress`: the site's own WordPress, run on its node: core facts and maintenance mode, plugins,
// themes, users, and search and replace. A site that is not running, or has no WordPress (yet), refuses every
// operation alike: the page shows that refusal once instead of one per section.

import { EmptyState } from '../../console/kit.ts'
import { SiteFrame } from '../../sites/console/contract.ts'
import { useWordPressCore, WordPressCore } from './wordpress-core.tsx'
import { WordPressPlugins } from './wordpress-plugins.tsx'
import { WordPressSearchReplace } from './wordpress-search-replace.tsx'
import { WordPressThemes } from './wordpress-themes.tsx'
import { WordPressUsers } from './wordpress-users.tsx'

function WordPressSections({ site }: { site: Parameters<typeof WordPressCore>[0]['site'] }) {
  const core = useWordPressCore(site)
  return (
    <>
      <WordPressCore site={site} core={core} />
      {core.isSuccess ? (
        <>
          <WordPressPlugins site={site} />
          <WordPressThemes site={site} />
          <WordPressUsers site={site} />
          <WordPressSearchReplace site={site} />
        </>
      ) : core.isError ? (
        <p className="muted">
          Plugins, themes, users and search and replace are available once WordPress answers.
        </p>
      ) : null}
    </>
  )
}

export function SiteWordPressPage({ id }: { id: string }) {
  return (
    <SiteFrame id={id} title="WordPress">
      {(site) =>
        site.type !== 'wordpress' ? (
          <EmptyState>This is a {site.type} site: it has no WordPress.</EmptyState>
        ) : (
          <WordPressSections site={site} />
        )
      }
    </SiteFrame>
  )
}
