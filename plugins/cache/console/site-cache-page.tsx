// A site's page cache: its settings (on or off, how long pages are kept, the cookies and paths that bypass it, the
// built-in ones listed) and purges, of every page or of the paths typed. Changing and purging need `cache:manage`.

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ActionError,
  CheckboxField,
  ConfirmButton,
  ErrorNotice,
  Facts,
  FormFooter,
  ListField,
  Loading,
  listOf,
  numberOf,
  SavedNotice,
  Section,
  TextField,
  unwrap,
  useAction,
  useApiForm,
  useEditForm,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Cache = Schemas['SiteCache']
type Purge = Schemas['CachePurge']

export function SiteCachePage({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const cache = useQuery(api.query('/api/v1/sites/{id}/cache', { params: { path: { id: siteId } } }))
  if (cache.isPending) return <Loading />
  if (cache.isError) return <ErrorNotice error={cache.error} />
  const current = cache.data
  return (
    <>
      <Section title="Page cache">
        <Facts
          items={[
            ['Status', current.enabled ? 'On' : 'Off'],
            ['Pages kept for', `${current.ttlSeconds} s`],
            ['Always bypassed by cookies', current.builtInBypassCookies.join(', ')],
            [
              'Never cached',
              `${current.builtInExcludedPaths.join(', ')}, and any request with a query string`,
            ],
          ]}
        />
        {can('cache:manage') ? <CacheForm siteId={siteId} current={current} /> : null}
      </Section>
      {can('cache:manage') ? <PurgeSection siteId={siteId} /> : null}
    </>
  )
}

function CacheForm({ siteId, current }: { siteId: string; current: Cache }) {
  const form = useEditForm((data) =>
    unwrap(
      api.PATCH('/api/v1/sites/{id}/cache', {
        params: { path: { id: siteId } },
        body: {
          enabled: data.get('enabled') === 'true',
          ...(numberOf(data, 'ttlSeconds') === undefined ? {} : { ttlSeconds: numberOf(data, 'ttlSeconds') }),
          bypassCookies: listOf(data, 'bypassCookies') ?? [],
          excludedPaths: listOf(data, 'excludedPaths') ?? [],
        },
      }),
    ),
  )
  return (
    <form key={current.updatedAt ?? 'defaults'} onSubmit={form.submit} noValidate data-testid="cache-form">
      <CheckboxField
        form={form}
        name="enabled"
        label="Cache pages"
        defaultChecked={current.enabled}
        hint="nginx keeps the site’s pages and serves them again without running PHP; WordPress content changes purge what they change within a second."
      />
      <TextField
        form={form}
        name="ttlSeconds"
        label="Keep pages for (seconds)"
        inputMode="numeric"
        defaultValue={String(current.ttlSeconds)}
        hint="1 to 2,592,000 (30 days)."
      />
      <ListField
        form={form}
        name="bypassCookies"
        label="Bypass cookies"
        multiline
        defaultValue={current.bypassCookies}
        hint="Cookie names (a trailing * for a prefix), one a line: a request carrying one always reaches PHP. Besides the built-in ones."
      />
      <ListField
        form={form}
        name="excludedPaths"
        label="Excluded paths"
        multiline
        defaultValue={current.excludedPaths}
        hint="Path prefixes never cached (/cart/), one a line. Besides the built-in ones."
      />
      <SavedNotice form={form} />
      <FormFooter form={form}>Save cache settings</FormFooter>
    </form>
  )
}

function PurgeSection({ siteId }: { siteId: string }) {
  const [done, setDone] = useState<Purge | null>(null)
  const purgeAll = useAction(
    () => unwrap(api.POST('/api/v1/sites/{id}/cache/purge', { params: { path: { id: siteId } }, body: {} })),
    setDone,
  )
  const purgePaths = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/cache/purge', {
          params: { path: { id: siteId } },
          body: { paths: listOf(data, 'paths') ?? [] },
        }),
      ),
    { onSuccess: (result) => setDone(result) },
  )
  return (
    <Section title="Purge">
      <p className="muted">The next request for each purged page is a MISS, served by PHP and kept again.</p>
      <ConfirmButton
        confirmLabel="Confirm: purge every page"
        disabled={purgeAll.isPending}
        onConfirm={() => purgeAll.mutate(undefined)}
      >
        Purge everything
      </ConfirmButton>
      <ActionError action={purgeAll} />
      <form onSubmit={purgePaths.submit} noValidate data-testid="cache-purge-form">
        <ListField
          form={purgePaths}
          name="paths"
          label="Paths"
          multiline
          hint="Paths to purge (/about/), one a line, without a query string."
        />
        <FormFooter form={purgePaths}>Purge these paths</FormFooter>
      </form>
      {done ? (
        <p role="status" data-testid="cache-purged">
          Purged {done.paths ? done.paths.join(', ') : 'every page'}: {done.removed} cached answers removed.
        </p>
      ) : null}
    </Section>
  )
}
