// The text editor of one file (`?path=/htdocs/index.php`): it reads the file with its entity tag and saves only
// over that copy, so two people editing never silently overwrite each other: a save after someone else's says
// so, and the user chooses between their version and the other.

import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import {
  ApiProblem,
  ConfirmButton,
  Facts,
  formatBytes,
  formatTime,
  Link,
  Loading,
  unwrap,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { SiteStateFrame } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { Breadcrumbs } from './breadcrumbs.tsx'
import { DownloadButton } from './download-button.tsx'
import { type EditableContent, editableBytes, readContent, saveContent } from './file-content.ts'
import { FileProblem } from './file-problem.tsx'
import { baseName, cleanPath, folderPage, parentOf } from './paths.ts'

type SiteFile = Schemas['SiteFile']
type TextContent = Extract<EditableContent, { kind: 'text' }>

function TextEditor({
  siteId,
  path,
  initial,
  onReload,
}: {
  siteId: string
  path: string
  initial: TextContent
  onReload: () => void
}) {
  const id = useId()
  const [text, setText] = useState(initial.text)
  const [etag, setEtag] = useState(initial.etag)
  const [saved, setSaved] = useState(initial.text)
  const [saving, setSaving] = useState(false)
  const [savedAt, setSavedAt] = useState<string | null>(null)
  const [conflict, setConflict] = useState(false)
  const [failure, setFailure] = useState<unknown>(null)
  const dirty = text !== saved

  const save = async (tag: string | null) => {
    if (saving) return
    setSaving(true)
    setFailure(null)
    const sent = text
    try {
      const answer = await saveContent(siteId, path, sent, tag, initial.crlf)
      setEtag(answer.etag)
      setSaved(sent)
      setConflict(false)
      setSavedAt(formatTime(answer.file.modifiedAt))
    } catch (error) {
      if (error instanceof ApiProblem && error.code === 'file_changed') setConflict(true)
      else setFailure(error)
    } finally {
      setSaving(false)
    }
  }
  // Overwriting is a save over whatever the file is now: its current tag, so a third save meanwhile still wins.
  const overwrite = async () => {
    try {
      const now = await unwrap(
        api.GET('/api/v1/sites/{id}/files/stat', { params: { path: { id: siteId }, query: { path } } }),
      )
      await save(now.etag)
    } catch (error) {
      setFailure(error)
    }
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void save(etag)
  }

  return (
    <form className="files-editor-form" onSubmit={submit} noValidate>
      <div className="file-editor">
        <label htmlFor={id}>File content</label>
        <textarea
          id={id}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Ctrl+S / Cmd+S saves, as in every editor; the browser's own "save page" is of no use here.
            if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
              event.preventDefault()
              void save(etag)
            }
          }}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          wrap="off"
          aria-describedby={`${id}-status`}
        />
      </div>
      {conflict ? (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>Someone else changed this file since you opened it.</strong> Your text is still here.
            Reload their version (your changes are lost: copy them first if you need them), or overwrite
            theirs with yours.
          </p>
          <div className="files-actions">
            <ConfirmButton confirmLabel="Discard my changes and reload" onConfirm={onReload}>
              Reload their version
            </ConfirmButton>
            <ConfirmButton confirmLabel="Really overwrite their changes?" onConfirm={() => void overwrite()}>
              Overwrite with my version
            </ConfirmButton>
          </div>
        </div>
      ) : null}
      {failure ? <FileProblem error={failure} /> : null}
      <div className="files-editor-bar">
        <button type="submit" className="button" disabled={saving} aria-busy={saving || undefined}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <p id={`${id}-status`} className="muted" aria-live="polite">
          {dirty ? 'Unsaved changes.' : savedAt ? `Saved (${savedAt}).` : 'No changes.'} Ctrl+S saves.
        </p>
      </div>
    </form>
  )
}

function Editor({ siteId, path }: { siteId: string; path: string }) {
  const stat = useQuery(
    api.query('/api/v1/sites/{id}/files/stat', { params: { path: { id: siteId }, query: { path } } }),
  )
  const file: SiteFile | undefined = stat.data
  const editable = file?.type === 'file' && file.size <= editableBytes
  // The editor's own copy, not an answer kept under the API's paths: a change to the site's files (this save
  // included) reads those again, and must not reload (and drop) the text being edited.
  const content = useQuery({
    queryKey: ['editor', siteId, path],
    queryFn: () => readContent(siteId, path),
    enabled: editable,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  })
  if (stat.isPending) return <Loading />
  if (stat.isError) return <FileProblem error={stat.error} />
  const entry = stat.data
  const facts = (
    <Facts
      items={[
        ['Path', <code key="path">{entry.path}</code>],
        ['Size', formatBytes(entry.size)],
        ['Mode', <code key="mode">{entry.mode}</code>],
        ['Modified', formatTime(entry.modifiedAt)],
      ]}
    />
  )
  if (entry.type === 'directory')
    return (
      <p className="notice notice-info">
        This is a folder. <Link to={folderPage(siteId, entry.path)}>Open it in the file manager</Link>.
      </p>
    )
  if (entry.type !== 'file')
    return (
      <p className="notice notice-info">
        {entry.type === 'link'
          ? `This is a link to ${entry.target ?? 'somewhere'}; the panel never follows links.`
          : 'This is a special file (a pipe, socket or device): it cannot be opened.'}
      </p>
    )
  if (!editable)
    return (
      <>
        {facts}
        <div className="notice notice-info">
          <p>
            This file is {formatBytes(entry.size)}: too large to edit in the browser (the editor opens files
            up to {formatBytes(editableBytes)}). Download it instead.
          </p>
        </div>
        <DownloadButton siteId={siteId} path={path} label="Download the file" />
      </>
    )
  if (content.isPending) return <Loading label="Reading the file…" />
  if (content.isError) return <FileProblem error={content.error} />
  return (
    <>
      {facts}
      {content.data.kind === 'binary' ? (
        <>
          <div className="notice notice-info">
            <p>
              This file is not text (it holds bytes that are not UTF-8 text), so it cannot be edited here.
            </p>
          </div>
          <DownloadButton siteId={siteId} path={path} label="Download the file" />
        </>
      ) : (
        <>
          {/* A reload is a new editor holding the file as it is now. */}
          <TextEditor
            key={content.dataUpdatedAt}
            siteId={siteId}
            path={path}
            initial={content.data}
            onReload={() => {
              void stat.refetch()
              void content.refetch()
            }}
          />
          <div className="files-actions">
            <DownloadButton siteId={siteId} path={path} />
          </div>
        </>
      )}
    </>
  )
}

export function FileEditorPage({ siteId }: { siteId: string }) {
  const session = useSession()
  const { query } = useLocation()
  const path = cleanPath(query.get('path'))
  const name = baseName(path)
  return (
    <SiteStateFrame siteId={siteId} title={name ? `Edit ${name}` : 'Edit a file'}>
      {() => (
        <>
          <Breadcrumbs siteId={siteId} path={parentOf(path)} fileName={name} />
          <p>
            <Link to={folderPage(siteId, parentOf(path))}>Back to the folder</Link>
          </p>
          {session.can('site:files') ? (
            <Editor key={path} siteId={siteId} path={path} />
          ) : (
            <p className="notice notice-info">Your role does not include working with this site’s files.</p>
          )}
        </>
      )}
    </SiteStateFrame>
  )
}
