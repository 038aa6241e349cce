// A WordPress site's themes: switch to one, delete an unused one, install from a zip.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { type Column, CursorTable } from '../../components/cursor-table.tsx'
import { Section } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { ActionError, useSiteAction } from './site-action.tsx'
import { WordPressPackageForm } from './wordpress-package-form.tsx'

type Site = Schemas['Site']
type Theme = Schemas['WordPressTheme']

export function WordPressThemes({ site }: { site: Site }) {
  const queries = useQueryClient()
  const listKey = ['sites', site.id, 'wordpress', 'themes']
  const refresh = () => void queries.invalidateQueries({ queryKey: listKey })
  const path = (slug: string) => ({ params: { path: { id: site.id, slug } } })
  const activate = useSiteAction(
    (theme: Theme) =>
      unwrap(api.POST('/api/v1/sites/{id}/wordpress/themes/{slug}/activate', path(theme.slug))),
    refresh,
  )
  const remove = useSiteAction(
    (theme: Theme) => unwrap(api.DELETE('/api/v1/sites/{id}/wordpress/themes/{slug}', path(theme.slug))),
    refresh,
  )
  const columns: Column<Theme>[] = [
    { header: 'Theme', cell: (theme) => theme.name },
    { header: 'Folder', cell: (theme) => <code>{theme.slug}</code> },
    { header: 'Version', cell: (theme) => theme.version || '—' },
    {
      header: 'Status',
      cell: (theme) => (
        <>
          <StatusBadge status={theme.status} />
          {theme.parent ? <span className="muted"> child of {theme.parent}</span> : null}
        </>
      ),
    },
    {
      header: 'Actions',
      cell: (theme) =>
        theme.status === 'inactive' ? (
          <div className="actions">
            <button
              type="button"
              className="button secondary"
              disabled={activate.isPending}
              aria-label={`Activate ${theme.name}`}
              onClick={() => activate.mutate(theme)}
            >
              Activate
            </button>
            <ConfirmButton
              confirmLabel={`Confirm delete ${theme.name}`}
              disabled={remove.isPending}
              onConfirm={() => remove.mutate(theme)}
            >
              Delete {theme.name}
            </ConfirmButton>
          </div>
        ) : (
          <span className="muted">in use</span>
        ),
    },
  ]
  return (
    <Section title="Themes">
      <ActionError action={activate} />
      <ActionError action={remove} />
      <CursorTable<Theme>
        queryKey={listKey}
        load={() =>
          unwrap(api.GET('/api/v1/sites/{id}/wordpress/themes', { params: { path: { id: site.id } } }))
        }
        columns={columns}
        caption="WordPress themes"
        rowKey={(theme) => theme.slug}
        empty="No themes installed. Install one from a zip below."
      />
      <WordPressPackageForm
        kind="theme"
        listKey={listKey}
        install={(zip) =>
          unwrap(
            api.POST('/api/v1/sites/{id}/wordpress/themes', {
              params: { path: { id: site.id } },
              body: { path: zip },
            }),
          )
        }
      />
    </Section>
  )
}
