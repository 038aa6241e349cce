// A WordPress site's plugins: activate, deactivate, delete, and install from a zip.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { type Column, CursorTable } from '../../components/cursor-table.tsx'
import { Section } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { ActionError, useSiteAction } from './site-action.tsx'
import { WordPressPackageForm } from './wordpress-package-form.tsx'

type Site = Schemas['Site']
type Plugin = Schemas['WordPressPlugin']

export function WordPressPlugins({ site }: { site: Site }) {
  const queries = useQueryClient()
  const listKey = ['sites', site.id, 'wordpress', 'plugins']
  const refresh = () => void queries.invalidateQueries({ queryKey: listKey })
  const path = (slug: string) => ({ params: { path: { id: site.id, slug } } })
  const toggle = useSiteAction(
    (plugin: Plugin) =>
      plugin.status === 'active'
        ? unwrap(api.POST('/api/v1/sites/{id}/wordpress/plugins/{slug}/deactivate', path(plugin.slug)))
        : unwrap(api.POST('/api/v1/sites/{id}/wordpress/plugins/{slug}/activate', path(plugin.slug))),
    refresh,
  )
  const remove = useSiteAction(
    (plugin: Plugin) => unwrap(api.DELETE('/api/v1/sites/{id}/wordpress/plugins/{slug}', path(plugin.slug))),
    refresh,
  )
  const columns: Column<Plugin>[] = [
    { header: 'Plugin', cell: (plugin) => plugin.name },
    { header: 'Folder', cell: (plugin) => <code>{plugin.slug}</code> },
    { header: 'Version', cell: (plugin) => plugin.version || '—' },
    { header: 'Status', cell: (plugin) => <StatusBadge status={plugin.status} /> },
    {
      header: 'Actions',
      cell: (plugin) => (
        <div className="actions">
          <button
            type="button"
            className="button secondary"
            disabled={toggle.isPending}
            aria-label={`${plugin.status === 'active' ? 'Deactivate' : 'Activate'} ${plugin.name}`}
            onClick={() => toggle.mutate(plugin)}
          >
            {plugin.status === 'active' ? 'Deactivate' : 'Activate'}
          </button>
          {plugin.status === 'inactive' ? (
            <ConfirmButton
              confirmLabel={`Confirm delete ${plugin.name}`}
              disabled={remove.isPending}
              onConfirm={() => remove.mutate(plugin)}
            >
              Delete {plugin.name}
            </ConfirmButton>
          ) : null}
        </div>
      ),
    },
  ]
  return (
    <Section title="Plugins">
      <ActionError action={toggle} />
      <ActionError action={remove} />
      <CursorTable<Plugin>
        queryKey={listKey}
        load={() =>
          unwrap(api.GET('/api/v1/sites/{id}/wordpress/plugins', { params: { path: { id: site.id } } }))
        }
        columns={columns}
        caption="WordPress plugins"
        rowKey={(plugin) => plugin.slug}
        empty="No plugins installed. Install one from a zip below."
      />
      <WordPressPackageForm
        kind="plugin"
        listKey={listKey}
        install={(zip) =>
          unwrap(
            api.POST('/api/v1/sites/{id}/wordpress/plugins', {
              params: { path: { id: site.id } },
              body: { path: zip },
            }),
          )
        }
      />
    </Section>
  )
}
