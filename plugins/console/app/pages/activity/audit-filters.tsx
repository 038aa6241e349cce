// The audit log's filters: action, actor, subject and a time range. Checked by the API (one entry read with
// them), then kept in the query string, so a filtered view is a link to share.

import { api, unwrap } from '../../api/client.ts'
import { FormProblem, TextField } from '../../components/form.tsx'
import { isoOfLocal, localOfIso } from '../../components/local-time.ts'
import { Link } from '../../router.tsx'
import { textsOf, useFilterForm } from './filters.ts'

/** The filters `GET /audit` takes, by their query names. */
export const auditFilterNames = ['action', 'actor', 'subject', 'since', 'until'] as const
export type AuditFilterValues = Partial<Record<(typeof auditFilterNames)[number], string>>

export function AuditFilters({ filters }: { filters: AuditFilterValues }) {
  const form = useFilterForm(
    auditFilterNames,
    (data) => {
      const values: AuditFilterValues = textsOf(data, ['action', 'actor', 'subject'] as const)
      // The time fields are the reader's local time; the API takes instants.
      for (const [name, value] of Object.entries(textsOf(data, ['since', 'until'] as const)))
        values[name as 'since' | 'until'] = isoOfLocal(value)
      return values
    },
    (values) => unwrap(api.GET('/api/v1/audit', { params: { query: { ...values, limit: 1 } } })),
  )
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
