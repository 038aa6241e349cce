// The audit log's filters: action, actor, subject and a time range. Checked by the API (one entry read with
// them), then kept in the query string, so a filtered view is a link to share.

import { api, unwrap } from '../../api/client.ts'
import { FormProblem, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { Link, setQuery } from '../../router.tsx'
import { isoOfLocal, localOfIso } from './audit-time.ts'
import { asFieldProblem } from './filters.ts'

/** The filters `GET /audit` takes, by their query names. */
export const auditFilterNames = ['action', 'actor', 'subject', 'since', 'until'] as const
export type AuditFilterValues = Partial<Record<(typeof auditFilterNames)[number], string>>

export function AuditFilters({ filters }: { filters: AuditFilterValues }) {
  const form = useApiForm(async (data) => {
    const values: AuditFilterValues = {}
    for (const name of ['action', 'actor', 'subject'] as const) {
      const value = textOf(data, name)
      if (value) values[name] = value
    }
    for (const name of ['since', 'until'] as const) {
      const value = textOf(data, name)
      if (value) values[name] = isoOfLocal(value)
    }
    try {
      await unwrap(api.GET('/api/v1/audit', { params: { query: { ...values, limit: 1 } } }))
    } catch (problem) {
      throw asFieldProblem(problem)
    }
    setQuery(Object.fromEntries(auditFilterNames.map((name) => [name, values[name] ?? null])))
  })
  const filtered = Object.keys(filters).length > 0
  return (
    <form className="form-inline" onSubmit={form.submit} noValidate>
      <TextField
        form={form}
        name="action"
        label="Action"
        defaultValue={filters.action}
        placeholder="site.create"
        autoComplete="off"
      />
      <TextField
        form={form}
        name="actor"
        label="Actor"
        hint="A user or token id"
        defaultValue={filters.actor}
        placeholder="usr_… or tok_…"
        autoComplete="off"
      />
      <TextField
        form={form}
        name="subject"
        label="Subject"
        hint="The changed resource’s id"
        defaultValue={filters.subject}
        placeholder="site_…"
        autoComplete="off"
      />
      <TextField
        form={form}
        name="since"
        label="From"
        type="datetime-local"
        defaultValue={localOfIso(filters.since)}
      />
      <TextField
        form={form}
        name="until"
        label="Until"
        type="datetime-local"
        defaultValue={localOfIso(filters.until)}
      />
      <button type="submit" className="button secondary" disabled={form.pending}>
        Filter
      </button>
      {filtered ? (
        <Link to="/audit" className="button secondary">
          Clear filters
        </Link>
      ) : null}
      <FormProblem form={form} />
    </form>
  )
}
