// `/sites/:id/staging`: the site's staging copy. On a live site without one: make it (its domain). Then: open it,
// push it to live with a choice of files and tables and a preview of what will change, follow the push, undo it.

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ActionError,
  ApiProblem,
  formatTime,
  JobProgress,
  Link,
  rawRequest,
  Section,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { SiteFrame, type SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { type PushChoice, pushBody, pushPreview } from './push-choice.ts'

type Site = SiteSchemas['Site']
type Staging = Schemas['Staging']

function CreateStaging({ site, onMade }: { site: Site; onMade: () => void }) {
  const [domain, setDomain] = useState('')
  const [jobId, setJobId] = useState<string | null>(null)
  const create = useAction(
    () =>
      unwrap(
        api.POST('/api/v1/sites/{id}/staging', {
          params: { path: { id: site.id } },
          body: domain.trim() ? { domain: domain.trim() } : {},
        }),
      ),
    (answer) => setJobId(answer.jobId),
  )
  return (
    <Section title="Make a staging copy">
      <p>
        A new site with this site’s files and database, its address moved to the staging domain, hidden from
        search engines. Push it back to live when it is ready.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          create.mutate(undefined)
        }}
      >
        <label>
          Staging domain
          <input
            name="domain"
            value={domain}
            placeholder={`staging.${site.domain}`}
            onChange={(event) => setDomain(event.target.value)}
          />
        </label>
        <button type="submit" className="button" disabled={create.isPending || jobId !== null}>
          Make staging copy
        </button>
      </form>
      <ActionError action={create} />
      {jobId ? <JobProgress jobId={jobId} onFinished={() => onMade()} /> : null}
    </Section>
  )
}

function Push({ staging, onPushed }: { staging: Staging; onPushed: () => void }) {
  const [choice, setChoice] = useState<PushChoice>({ files: 'all', paths: '', tables: 'all', tableNames: '' })
  const [confirming, setConfirming] = useState(false)
  const [jobId, setJobId] = useState<string | null>(null)
  const push = useAction(
    () =>
      unwrap(
        api.POST('/api/v1/sites/{id}/push', {
          params: { path: { id: staging.stagingSiteId } },
          body: pushBody(choice),
        }),
      ),
    (answer) => {
      setJobId(answer.jobId)
      setConfirming(false)
    },
  )
  const set = (change: Partial<PushChoice>) => {
    setChoice({ ...choice, ...change })
    setConfirming(false)
  }
  return (
    <Section title={`Push to ${staging.liveDomain}`}>
      <fieldset>
        <legend>Files</legend>
        {(['all', 'none', 'paths'] as const).map((value) => (
          <label key={value}>
            <input
              type="radio"
              name="files"
              checked={choice.files === value}
              onChange={() => set({ files: value })}
            />
            {value === 'all' ? 'All files' : value === 'none' ? 'No files' : 'These paths'}
          </label>
        ))}
        {choice.files === 'paths' ? (
          <textarea
            name="paths"
            aria-label="Paths, one a line"
            placeholder="/htdocs/wp-content/themes/shop"
            value={choice.paths}
            onChange={(event) => set({ paths: event.target.value })}
          />
        ) : null}
      </fieldset>
      <fieldset>
        <legend>Database</legend>
        {(['all', 'none', 'listed'] as const).map((value) => (
          <label key={value}>
            <input
              type="radio"
              name="tables"
              checked={choice.tables === value}
              onChange={() => set({ tables: value })}
            />
            {value === 'all' ? 'Whole database' : value === 'none' ? 'No tables' : 'These tables'}
          </label>
        ))}
        {choice.tables === 'listed' ? (
          <textarea
            name="tableNames"
            aria-label="Tables, one a line"
            placeholder={'wp_posts\nwp_postmeta'}
            value={choice.tableNames}
            onChange={(event) => set({ tableNames: event.target.value })}
          />
        ) : null}
      </fieldset>
      <div data-testid="push-preview">
        <h3>What will change</h3>
        <ul>
          {pushPreview(choice, staging.liveDomain, staging.stagingDomain).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </div>
      {confirming ? (
        <button
          type="button"
          className="button danger"
          disabled={push.isPending}
          onClick={() => push.mutate(undefined)}
        >
          Confirm push to {staging.liveDomain}
        </button>
      ) : (
        <button
          type="button"
          className="button"
          disabled={jobId !== null}
          onClick={() => setConfirming(true)}
        >
          Push to live
        </button>
      )}
      <ActionError action={push} />
      {jobId ? <JobProgress jobId={jobId} onFinished={() => onPushed()} /> : null}
    </Section>
  )
}

function LastPush({ staging, onUndone }: { staging: Staging; onUndone: () => void }) {
  const push = staging.lastPush
  const [jobId, setJobId] = useState<string | null>(null)
  const undo = useAction(
    async () => {
      const call = push?.undo
      if (!call) throw new Error('Nothing to undo')
      // The push's `undo`: the backups plugin's restore of the live site's pre-restore backup, as the job named it.
      const response = await rawRequest(call.path.replace(/^\/api\/v1/, ''), {
        method: call.method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call.body),
      })
      return (await response.json()) as { jobId: string }
    },
    (answer) => setJobId(answer.jobId),
  )
  if (!push) return null
  return (
    <Section title="Last push">
      <p>
        {push.status} — started {formatTime(push.startedAt)}
        {push.finishedAt ? `, ended ${formatTime(push.finishedAt)}` : ''}. Backup of the live site before it:{' '}
        <code>{push.preRestoreBackupId}</code>.
      </p>
      {push.undo ? (
        <button
          type="button"
          className="button secondary"
          disabled={undo.isPending || jobId !== null}
          onClick={() => undo.mutate(undefined)}
        >
          Undo this push
        </button>
      ) : null}
      <ActionError action={undo} />
      {jobId ? <JobProgress jobId={jobId} onFinished={() => onUndone()} /> : null}
    </Section>
  )
}

function StagingOf({ site }: { site: Site }) {
  const session = useSession()
  const query = useQuery({
    queryKey: ['staging', site.id],
    queryFn: async () => {
      const answer = await api.GET('/api/v1/sites/{id}/staging', { params: { path: { id: site.id } } })
      if (answer.response.status === 404) return null
      return unwrap(Promise.resolve(answer))
    },
  })
  const refresh = () => void query.refetch()
  if (query.isLoading) return <p>Loading…</p>
  if (query.error)
    return <p role="alert">{query.error instanceof ApiProblem ? query.error.message : 'Failed'}</p>
  const staging = query.data
  const manage = session.can('staging:manage')
  if (!staging) return manage ? <CreateStaging site={site} onMade={refresh} /> : <p>No staging copy.</p>
  const isStaging = staging.stagingSiteId === site.id
  return (
    <>
      <Section title="Staging copy">
        <p data-testid="staging-status">
          {isStaging ? 'This site is the staging copy of ' : 'Staging copy: '}
          <Link to={`/sites/${encodeURIComponent(isStaging ? staging.liveSiteId : staging.stagingSiteId)}`}>
            {isStaging ? staging.liveDomain : staging.stagingDomain}
          </Link>{' '}
          — {staging.status}
          {staging.error ? ` (${staging.error.code}: ${staging.error.message})` : ''}.{' '}
          <a href={`http://${staging.stagingDomain}/`} target="_blank" rel="noreferrer">
            Open {staging.stagingDomain}
          </a>
        </p>
      </Section>
      {staging.status === 'copying' ? <JobProgress jobId={staging.jobId} onFinished={refresh} /> : null}
      {manage && staging.status === 'ready' ? <Push staging={staging} onPushed={refresh} /> : null}
      <LastPush staging={staging} onUndone={refresh} />
    </>
  )
}

export function SiteStagingPage({ id }: { id: string }) {
  return (
    <SiteFrame id={id} title="Staging">
      {(site) => <StagingOf site={site} />}
    </SiteFrame>
  )
}
