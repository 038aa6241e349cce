// A site's response headers, edited as one list (`PUT /sites/{id}/headers`): a row per header, rows added and
// removed before saving; each refusal shows at its row's field.

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ErrorNotice,
  FormFooter,
  Loading,
  SavedNotice,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'

type Site = SiteSchemas['Site']
type SiteHeader = Schemas['SiteHeader']

/** Headers worth offering, with a sensible value. */
const suggestions: readonly SiteHeader[] = [
  { name: 'Strict-Transport-Security', value: 'max-age=31536000; includeSubDomains' },
  { name: 'X-Frame-Options', value: 'SAMEORIGIN' },
  { name: 'X-Content-Type-Options', value: 'nosniff' },
  { name: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  { name: 'Content-Security-Policy', value: "default-src 'self'" },
  { name: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
]

/** The rows of the form, in order, leaving out rows left empty. */
function headersOf(data: FormData, count: number): SiteHeader[] {
  const rows: SiteHeader[] = []
  for (let index = 0; index < count; index++) {
    const name = textOf(data, `headers.${index}.name`) ?? ''
    const value = textOf(data, `headers.${index}.value`) ?? ''
    if (name !== '' || value !== '') rows.push({ name, value })
  }
  return rows
}

function Editor({ site, saved, editable }: { site: Site; saved: SiteHeader[]; editable: boolean }) {
  const [rows, setRows] = useState<SiteHeader[]>(saved)
  const form = useApiForm((data) =>
    unwrap(
      api.PUT('/api/v1/sites/{id}/headers', {
        params: { path: { id: site.id } },
        body: { headers: headersOf(data, rows.length) },
      }),
    ),
  )
  const unused = suggestions.filter(
    (header) => !rows.some((row) => row.name.toLowerCase() === header.name.toLowerCase()),
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <p className="hint">
        Added to every answer of the site: pages, PHP, redirects and errors. Values are plain text (no quotes,
        \ or $); headers the node sets itself (Set-Cookie, Content-Type, Cache-Control, …) are refused.
      </p>
      <SavedNotice form={form} />
      {rows.map((row, index) => (
        // Rows are positions: a removed row renumbers those after it, as the body will.
        // biome-ignore lint/suspicious/noArrayIndexKey: the index is the row's place in the body
        <fieldset key={`${index}-${rows.length}`} className="inline-fields">
          <legend>Header {index + 1}</legend>
          <TextField
            form={form}
            name={`headers.${index}.name`}
            label="Name"
            defaultValue={row.name}
            readOnly={!editable}
            spellCheck={false}
          />
          <TextField
            form={form}
            name={`headers.${index}.value`}
            label="Value"
            defaultValue={row.value}
            readOnly={!editable}
            spellCheck={false}
          />
          {editable ? (
            <button type="button" onClick={() => setRows(rows.filter((_, other) => other !== index))}>
              Remove header {index + 1}
            </button>
          ) : null}
        </fieldset>
      ))}
      {rows.length === 0 ? <p>No headers of the site’s own.</p> : null}
      {editable ? (
        <>
          <div className="actions">
            <button type="button" onClick={() => setRows([...rows, { name: '', value: '' }])}>
              Add a header
            </button>
            {unused.map((header) => (
              <button key={header.name} type="button" onClick={() => setRows([...rows, header])}>
                Add {header.name}
              </button>
            ))}
          </div>
          <FormFooter form={form}>Save headers</FormFooter>
        </>
      ) : null}
    </form>
  )
}

export function HeadersForm({ site, editable }: { site: Site; editable: boolean }) {
  const headers = useQuery(api.query('/api/v1/sites/{id}/headers', { params: { path: { id: site.id } } }))
  if (headers.error) return <ErrorNotice error={headers.error} />
  if (!headers.data) return <Loading />
  return <Editor site={site} saved={headers.data.headers} editable={editable} />
}
