// A WordPress site's plugins: activate, deactivate, delete, and install from a zip.

import {
  ActionError,
  type Column,
  ConfirmButton,
  CursorTable,
  Section,
  StatusBadge,
  unwrap,
  useAction,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { WordPressPackageForm } from './wordpress-package-form.tsx'

type Site = SiteSchemas['Site']
type Plugin = Schemas['WordPressPlugin']

export function WordPressPlugins({ site }: { site: Site }) {
  const path = (slug: string) => ({ params: { path: { id: site.id, slug } } })
  const toggle = useAction((plugin: Plugin) =>
    plugin.status === 'active'
      ? unwrap(api.POST('/api/v1/sites/{id}/wordpress/plugins/{slug}/deactivate', path(plugin.slug)))
      : unwrap(api.POST('/api/v1/sites/{id}/wordpress/plugins/{slug}/activate', path(plugin.slug))),
  )
  const remove = useAction((plugin: Plugin) =>
    unwrap(api.DELETE('/api/v1/sites/{id}/wordpress/plugins/{slug}', path(plugin.slug))),
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
        list={api.list('/api/v1/sites/{id}/wordpress/plugins', { params: { path: { id: site.id } } })}
        columns={columns}
        caption="WordPress plugins"
        rowKey={(plugin) => plugin.slug}
        empty="No plugins installed. Install one from a zip below."
      />
      <WordPressPackageForm
        kind="plugin"
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
