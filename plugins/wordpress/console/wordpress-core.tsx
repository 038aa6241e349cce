// A WordPress site's version, address and title, and its maintenance mode switch.

import { useQuery } from '@tanstack/react-query'
import { ActionError, ErrorNotice, Facts, Loading, Section, unwrap, useAction } from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api } from './api.ts'

type Site = SiteSchemas['Site']

/** The site's WordPress as it reports itself; its refusal says why no WordPress operation can run now. */
export function useWordPressCore(site: Site) {
  return useQuery(api.query('/api/v1/sites/{id}/wordpress', { params: { path: { id: site.id } } }))
}

export function WordPressCore({ site, core }: { site: Site; core: ReturnType<typeof useWordPressCore> }) {
  const maintenance = useAction((enabled: boolean) =>
    unwrap(
      api.PUT('/api/v1/sites/{id}/wordpress/maintenance', {
        params: { path: { id: site.id } },
        body: { enabled },
      }),
    ),
  )
  return (
    <Section
      title="WordPress core"
      actions={
        core.data ? (
          <button
            type="button"
            className="button secondary"
            disabled={maintenance.isPending}
            onClick={() => maintenance.mutate(!core.data.maintenance)}
          >
            {core.data.maintenance ? 'Turn maintenance mode off' : 'Turn maintenance mode on'}
          </button>
        ) : null
      }
    >
      {core.isPending ? (
        <Loading />
      ) : core.isError ? (
        <ErrorNotice error={core.error} />
      ) : (
        <Facts
          items={[
            ['Version', core.data.version],
            ['Database version', String(core.data.databaseVersion)],
            ['Address', core.data.siteUrl],
            ['Title', core.data.title || '—'],
            [
              'Maintenance mode',
              core.data.maintenance
                ? 'On — visitors see “Briefly unavailable for scheduled maintenance”'
                : 'Off',
            ],
          ]}
        />
      )}
      <ActionError action={maintenance} />
    </Section>
  )
}
