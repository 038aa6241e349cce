// A WordPress site's themes: switch to one, delete an unused one, install from a zip.

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
type Theme = Schemas['WordPressTheme']

export function WordPressThemes({ site }: { site: Site }) {
  const path = (slug: string) => ({ params: { path: { id: site.id, slug } } })
  const activate = useAction((theme: Theme) =>
    unwrap(api.POST('/api/v1/sites/{id}/wordpress/themes/{slug}/activate', path(theme.slug))),
  )
  const remove = useAction((theme: Theme) =>
    unwrap(api.DELETE('/api/v1/sites/{id}/wordpress/themes/{slug}', path(theme.slug))),
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
        list={api.list('/api/v1/sites/{id}/wordpress/themes', { params: { path: { id: site.id } } })}
        columns={columns}
        caption="WordPress themes"
        rowKey={(theme) => theme.slug}
        empty="No themes installed. Install one from a zip below."
      />
      <WordPressPackageForm
        kind="theme"
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
