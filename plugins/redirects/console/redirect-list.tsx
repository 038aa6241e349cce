// A site's redirects: the table (each with Edit and Delete), and the form that adds one or changes the one chosen.

import { useState } from 'react'
import {
  ActionError,
  type Column,
  ConfirmButton,
  CursorTable,
  FormFooter,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useAction,
  useApiForm,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'

type Site = SiteSchemas['Site']
type Redirect = Schemas['Redirect']
type NewRedirect = Schemas['NewRedirect']

const matchOptions = [
  { value: 'exact', label: 'Exact path' },
  { value: 'prefix', label: 'Path and everything below it' },
]
const codeOptions = [
  { value: '301', label: '301 Moved permanently' },
  { value: '308', label: '308 Permanent (keeps the method)' },
  { value: '302', label: '302 Found (for now)' },
  { value: '307', label: '307 Temporary (keeps the method)' },
]

function bodyOf(data: FormData): NewRedirect {
  return {
    from: textOf(data, 'from') ?? '',
    to: textOf(data, 'to') ?? '',
    match: (textOf(data, 'match') ?? 'exact') as NewRedirect['match'],
    code: Number(textOf(data, 'code') ?? '301') as NewRedirect['code'],
  }
}

/** Adds a redirect, or changes `editing` when given. */
function RedirectForm({ site, editing, done }: { site: Site; editing: Redirect | null; done: () => void }) {
  const form = useApiForm(
    (data) =>
      editing
        ? unwrap(
            api.PATCH('/api/v1/sites/{id}/redirects/{redirectId}', {
              params: { path: { id: site.id, redirectId: editing.id } },
              body: bodyOf(data),
            }),
          )
        : unwrap(
            api.POST('/api/v1/sites/{id}/redirects', {
              params: { path: { id: site.id } },
              body: bodyOf(data),
            }),
          ),
    { resetOnSuccess: true, onSuccess: done },
  )
  return (
    <form onSubmit={form.submit} noValidate key={editing?.id ?? 'new'}>
      <TextField
        form={form}
        name="from"
        label="From path"
        required
        defaultValue={editing?.from}
        spellCheck={false}
        hint="Starts with /, without query string: /old-page, /blog/. Escape other characters as %XX."
      />
      <SelectField
        form={form}
        name="match"
        label="Match"
        options={matchOptions}
        defaultValue={editing?.match}
      />
      <TextField
        form={form}
        name="to"
        label="To"
        required
        defaultValue={editing?.to}
        spellCheck={false}
        hint="A path of this site (/new-page) or an address: https://example.org/page."
      />
      <SelectField
        form={form}
        name="code"
        label="Status"
        options={codeOptions}
        defaultValue={editing ? String(editing.code) : '301'}
      />
      <FormFooter form={form}>{editing ? `Save redirect from ${editing.from}` : 'Add redirect'}</FormFooter>
      {editing ? (
        <button type="button" onClick={done}>
          Cancel
        </button>
      ) : null}
    </form>
  )
}

export function RedirectList({ site, editable }: { site: Site; editable: boolean }) {
  const [editing, setEditing] = useState<Redirect | null>(null)
  const remove = useAction(
    (redirect: Redirect) =>
      unwrap(
        api.DELETE('/api/v1/sites/{id}/redirects/{redirectId}', {
          params: { path: { id: site.id, redirectId: redirect.id } },
        }),
      ),
    () => setEditing(null),
  )
  const columns: Column<Redirect>[] = [
    { header: 'From', cell: (redirect) => <code>{redirect.from}</code> },
    { header: 'Match', cell: (redirect) => (redirect.match === 'exact' ? 'exact' : 'prefix') },
    { header: 'To', cell: (redirect) => <code>{redirect.to}</code> },
    { header: 'Status', cell: (redirect) => String(redirect.code) },
    ...(editable
      ? [
          {
            header: 'Actions',
            cell: (redirect: Redirect) => (
              <div className="actions">
                <button type="button" onClick={() => setEditing(redirect)}>
                  Edit {redirect.from}
                </button>
                <ConfirmButton
                  confirmLabel={`Confirm delete redirect from ${redirect.from}`}
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate(redirect)}
                >
                  Delete redirect from {redirect.from}
                </ConfirmButton>
              </div>
            ),
          },
        ]
      : []),
  ]
  return (
    <>
      <ActionError action={remove} />
      <CursorTable<Redirect>
        list={api.list('/api/v1/sites/{id}/redirects', {
          params: { path: { id: site.id }, query: { limit: 100 } },
        })}
        columns={columns}
        caption="Redirects"
        rowKey={(redirect) => redirect.id}
        empty="No redirects yet."
      />
      {editable ? (
        <>
          <h3>{editing ? `Change the redirect from ${editing.from}` : 'New redirect'}</h3>
          <RedirectForm site={site} editing={editing} done={() => setEditing(null)} />
        </>
      ) : null}
    </>
  )
}
