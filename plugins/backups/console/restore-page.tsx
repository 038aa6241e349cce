// `/sites/:id/backups/:backupId/restore`: what of a backup goes back (everything, the files: all or chosen paths, or
// chosen databases) and where (the site itself, or a new site: a clone), then a preview of exactly what will change,
// and only then the restore, followed live with its undo (restore-progress.tsx). A refusal shows at its field.

import { useQuery } from '@tanstack/react-query'
import { type ReactNode, useState } from 'react'
import {
  ErrorNotice,
  Fieldset,
  FormFooter,
  formatTime,
  Link,
  Loading,
  Section,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useIdempotencyKey,
  useSession,
} from '../../console/kit.ts'
import { NodeField } from '../../nodes/console/contract.ts'
import { SiteFrame } from '../../sites/console/contract.ts'
import { api, type Backup, type Schemas } from './api.ts'
import { type RestoreChoice, type RestoreWhat, restoreBody, restorePreview } from './restore-choice.ts'
import { DatabaseChoice, PathsField, pathsOf } from './restore-fields.tsx'
import { RestoreProgress } from './restore-progress.tsx'

type Started = Schemas['RestoreAccepted']
type RestoreRequest = Schemas['RestoreRequest']

export function RestorePage({ siteId, backupId }: { siteId: string; backupId: string }) {
  return (
    <SiteFrame id={siteId} title="Restore">
      {(site) => <RestoreOfSite siteId={site.id} domain={site.domain} backupId={backupId} />}
    </SiteFrame>
  )
}

function RestoreOfSite({ siteId, domain, backupId }: { siteId: string; domain: string; backupId: string }) {
  const backup = useQuery(
    api.query('/api/v1/sites/{id}/backups/{backupId}', { params: { path: { id: siteId, backupId } } }),
  )
  const [started, setStarted] = useState<{ answer: Started; body: RestoreRequest } | null>(null)
  const back = <Link to={`/sites/${encodeURIComponent(siteId)}/backups`}>Back to the site’s backups</Link>
  if (backup.isPending) return <Loading />
  if (backup.isError) return <ErrorNotice error={backup.error} />
  if (backup.data.status !== 'completed' || !backup.data.contents)
    return (
      <p className="notice notice-error" role="alert">
        Only a completed backup can be restored; this one is {backup.data.status}. {back}
      </p>
    )
  return (
    <Section title={`From the backup of ${formatTime(backup.data.createdAt)}`}>
      <p>{back}</p>
      {started ? (
        <RestoreProgress siteId={siteId} started={started.answer} body={started.body} />
      ) : (
        <RestoreForm
          siteId={siteId}
          domain={domain}
          backup={backup.data}
          onStarted={(answer, body) => setStarted({ answer, body })}
        />
      )}
    </Section>
  )
}

/** The choice the form's data makes. */
function choiceOf(data: FormData, form: HTMLFormElement): RestoreChoice {
  const what = (textOf(data, 'what') ?? 'everything') as RestoreWhat
  const paths = pathsOf(data)
  const node = form.querySelector<HTMLSelectElement>('select[name="into.newSite.nodeId"]')
  const nodeId = textOf(data, 'into.newSite.nodeId')
  return {
    what,
    paths: textOf(data, 'filesScope') === 'chosen' ? paths : null,
    databaseIds: data.getAll('databases').map(String),
    newSite:
      textOf(data, 'where') === 'new'
        ? {
            domain: textOf(data, 'into.newSite.domain') ?? '',
            ...(nodeId ? { nodeId, nodeName: node?.selectedOptions[0]?.text } : {}),
          }
        : null,
  }
}

function RestoreForm({
  siteId,
  domain,
  backup,
  onStarted,
}: {
  siteId: string
  domain: string
  backup: Backup
  onStarted: (answer: Started, body: RestoreRequest) => void
}) {
  const contents = backup.contents as NonNullable<Backup['contents']>
  const [what, setWhat] = useState<RestoreWhat>('everything')
  const [filesScope, setFilesScope] = useState<'all' | 'chosen'>('all')
  const [where, setWhere] = useState<'site' | 'new'>('site')
  const [preview, setPreview] = useState<{ lines: string[]; body: RestoreRequest } | null>(null)
  // The paths the last restore sent, to name the one a refusal is about after the preview is gone.
  const [sentPaths, setSentPaths] = useState<readonly string[]>([])
  const idempotency = useIdempotencyKey()
  // A copy is a new site: the API asks for `site:create` too.
  const canCreateSites = useSession().can('site:create')
  const form = useApiForm(
    async (data, element) => {
      // The first submit shows what will change; only the second, unchanged, restores.
      if (!preview) {
        const choice = choiceOf(data, element)
        const lines = restorePreview(choice, { domain, takenAt: formatTime(backup.createdAt), contents })
        setPreview({ lines, body: restoreBody(choice) })
        return null
      }
      setSentPaths(Array.isArray(preview.body.files) ? preview.body.files : [])
      try {
        const answer = await unwrap(
          api.POST('/api/v1/sites/{id}/backups/{backupId}/restore', {
            params: {
              path: { id: siteId, backupId: backup.id },
              header: { 'Idempotency-Key': idempotency.key() },
            },
            body: preview.body,
          }),
        )
        return { answer, body: preview.body }
      } catch (error) {
        idempotency.afterFailure(error)
        throw error
      }
    },
    {
      onSuccess: (started) => {
        if (started) onStarted(started.answer, started.body)
      },
    },
  )
  // Any change to the choice takes the preview away: what is confirmed is always what was previewed.
  const changed = () => {
    if (preview) setPreview(null)
  }
  return (
    <form onSubmit={form.submit} onChange={changed} noValidate data-testid="restore-form">
      <Fieldset legend="What goes back">
        <Radio name="what" value="everything" checked={what === 'everything'} onPick={setWhat}>
          Everything: its files and every database
        </Radio>
        <Radio name="what" value="files" checked={what === 'files'} onPick={setWhat}>
          Files only
        </Radio>
        <Radio
          name="what"
          value="databases"
          checked={what === 'databases'}
          onPick={setWhat}
          disabled={contents.databases.length === 0}
        >
          Databases only{contents.databases.length === 0 ? ' (the backup holds none)' : ''}
        </Radio>
      </Fieldset>
      {what === 'files' ? (
        <Fieldset legend="Which files">
          <Radio name="filesScope" value="all" checked={filesScope === 'all'} onPick={setFilesScope}>
            All files
          </Radio>
          <Radio name="filesScope" value="chosen" checked={filesScope === 'chosen'} onPick={setFilesScope}>
            Chosen paths
          </Radio>
          {filesScope === 'chosen' ? <PathsField form={form} sent={sentPaths} /> : null}
        </Fieldset>
      ) : null}
      {what === 'databases' ? <DatabaseChoice form={form} databases={contents.databases} /> : null}
      <Fieldset legend="Where to">
        <Radio name="where" value="site" checked={where === 'site'} onPick={setWhere}>
          Into {domain} itself
        </Radio>
        <Radio
          name="where"
          value="new"
          checked={where === 'new'}
          onPick={setWhere}
          disabled={!canCreateSites}
        >
          Into a new site (a copy){canCreateSites ? '' : ': creating sites is not yours to do'}
        </Radio>
        {where === 'new' ? (
          <>
            <TextField
              form={form}
              name="into.newSite.domain"
              label="New site’s domain"
              autoComplete="off"
              spellCheck={false}
            />
            <NodeField form={form} name="into.newSite.nodeId" />
          </>
        ) : null}
      </Fieldset>
      {preview ? (
        <section
          className="restore-preview"
          data-testid="restore-preview"
          aria-labelledby="restore-preview-heading"
        >
          <h3 id="restore-preview-heading">What will change</h3>
          <ul>
            {preview.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <FormFooter form={form}>{preview ? 'Restore now' : 'Preview restore'}</FormFooter>
    </form>
  )
}

/** One choice of a radio group whose value the form keeps in its state (`onPick`), to show the fields it needs. */
function Radio<V extends string>({
  name,
  value,
  checked,
  onPick,
  disabled,
  children,
}: {
  name: string
  value: V
  checked: boolean
  onPick: (value: V) => void
  disabled?: boolean
  children: ReactNode
}) {
  const id = `${name}-${value}`
  return (
    <div className="field checkbox">
      <input
        type="radio"
        id={id}
        name={name}
        value={value}
        checked={checked}
        disabled={disabled}
        onChange={() => onPick(value)}
      />
      <label htmlFor={id}>{children}</label>
    </div>
  )
}
