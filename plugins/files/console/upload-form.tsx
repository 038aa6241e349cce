// Uploading files into the folder on show: each file's progress, and each refusal (a full disk quota, a file too
// large, a name already taken) beside the file it concerns, so one refused file does not hide the others' fate.

import { type FormEvent, useId, useRef, useState } from 'react'
import { ApiProblem, formatBytes } from '../../console/kit.ts'
import { explanationOf } from './file-problem.tsx'
import { joinPath } from './paths.ts'
import { resumableFromBytes, uploadFile } from './uploads.ts'

interface Row {
  readonly key: string
  readonly name: string
  readonly size: number
  readonly sent: number
  readonly state: 'waiting' | 'sending' | 'done' | 'refused' | 'cancelled'
  readonly message?: string
}

/** A refusal in a sentence or two: the API's detail, what to do about it, and the request id. */
function describe(error: unknown): string {
  if (!(error instanceof ApiProblem)) return `The upload did not reach the panel: ${String(error)}`
  // `If-None-Match: *` refused: the file exists (the API's words are about tags, which the user never saw).
  if (error.code === 'file_changed')
    return 'A file of that name exists already: tick “Replace existing files”.'
  const parts = [error.detail ?? error.title, explanationOf(error) ?? '']
  if (error.requestId) parts.push(`(request ${error.requestId})`)
  return parts.filter(Boolean).join(' ')
}

function stateText(row: Row): string {
  if (row.state === 'waiting') return 'Waiting'
  if (row.state === 'sending')
    return row.size > 0 ? `Sending… ${Math.floor((100 * row.sent) / row.size)}%` : 'Sending…'
  if (row.state === 'done') return 'Uploaded'
  if (row.state === 'cancelled') return 'Cancelled'
  return `Refused: ${row.message ?? ''}`
}

export function UploadForm({ siteId, dir }: { siteId: string; dir: string }) {
  const inputId = useId()
  const replaceId = useId()
  const [rows, setRows] = useState<Row[]>([])
  const [running, setRunning] = useState(false)
  const [summary, setSummary] = useState('')
  const abort = useRef<AbortController | null>(null)

  const update = (key: string, change: Partial<Row>) =>
    setRows((previous) => previous.map((row) => (row.key === key ? { ...row, ...change } : row)))

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (running) return
    const form = event.currentTarget
    const input = form.elements.namedItem('files') as HTMLInputElement
    const replace = (form.elements.namedItem('replace') as HTMLInputElement).checked
    const files = [...(input.files ?? [])]
    if (files.length === 0) {
      setSummary('Choose one or more files first.')
      return
    }
    const batch = files.map((file, index) => ({
      key: `${Date.now()}-${index}`,
      name: file.name,
      size: file.size,
      sent: 0,
      state: 'waiting' as const,
    }))
    setRows(batch)
    setRunning(true)
    setSummary(`Uploading ${files.length} file${files.length === 1 ? '' : 's'} to ${dir}…`)
    const controller = new AbortController()
    abort.current = controller
    let done = 0
    // One file at a time: parallel uploads would share the site's quota count and the panel's bandwidth anyway.
    for (const [index, file] of files.entries()) {
      const row = batch[index] as Row
      if (controller.signal.aborted) {
        update(row.key, { state: 'cancelled' })
        continue
      }
      update(row.key, { state: 'sending' })
      try {
        await uploadFile(siteId, joinPath(dir, file.name), file, {
          replace,
          signal: controller.signal,
          onProgress: (sent) => update(row.key, { sent }),
        })
        done++
        update(row.key, { state: 'done', sent: file.size })
      } catch (error) {
        if (controller.signal.aborted) update(row.key, { state: 'cancelled' })
        else update(row.key, { state: 'refused', message: describe(error) })
      }
    }
    setRunning(false)
    abort.current = null
    setSummary(`${done} of ${files.length} uploaded.`)
    if (done === files.length) input.value = ''
  }

  return (
    <form className="files-upload" onSubmit={(event) => void submit(event)} noValidate>
      <div className="form-inline">
        <div className="field">
          <label htmlFor={inputId}>Upload files</label>
          <input id={inputId} type="file" name="files" multiple aria-describedby={`${inputId}-hint`} />
        </div>
        <div className="field checkbox">
          <input id={replaceId} type="checkbox" name="replace" value="true" />
          <label htmlFor={replaceId}>Replace existing files</label>
        </div>
        <button type="submit" className="button" disabled={running} aria-busy={running || undefined}>
          {running ? 'Uploading…' : 'Upload'}
        </button>
        {running ? (
          <button type="button" className="button secondary" onClick={() => abort.current?.abort()}>
            Cancel upload
          </button>
        ) : null}
      </div>
      <p className="hint" id={`${inputId}-hint`}>
        Files go into {dir}. Files over {formatBytes(resumableFromBytes)} are sent in parts and survive a
        dropped connection.
      </p>
      <p className="muted files-upload-summary" aria-live="polite">
        {summary}
      </p>
      {rows.length > 0 ? (
        <ul className="files-upload-list">
          {rows.map((row) => (
            <li key={row.key} data-state={row.state}>
              <span className="files-upload-name">
                {row.name} <span className="muted">({formatBytes(row.size)})</span>
              </span>
              <progress
                max={Math.max(row.size, 1)}
                value={row.state === 'done' ? Math.max(row.size, 1) : row.sent}
                aria-label={`Upload of ${row.name}`}
              />
              <span className={row.state === 'refused' ? 'field-error' : undefined}>{stateText(row)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  )
}
