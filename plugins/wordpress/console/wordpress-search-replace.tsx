// Replaces the site's old address in its WordPress database (after a domain change); a dry run counts first.

import {
  CheckboxField,
  FormFooter,
  formatCount,
  Section,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'

type Site = SiteSchemas['Site']
type Result = Schemas['WordPressSearchReplace']

function Outcome({ result }: { result: Result }) {
  return (
    <div className="notice notice-info" role="status">
      <p>
        {result.dryRun ? 'Dry run: ' : ''}
        {formatCount(result.replacements)}{' '}
        {result.dryRun ? 'occurrences would be replaced' : 'occurrences replaced'} of{' '}
        <code>{result.from}</code> by <code>{result.to}</code>.
      </p>
      {result.tables.length > 0 ? (
        <table>
          <caption className="visually-hidden">Replacements by table</caption>
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Replacements</th>
            </tr>
          </thead>
          <tbody>
            {result.tables.map((table) => (
              <tr key={table.name}>
                <td>
                  <code>{table.name}</code>
                </td>
                <td>{formatCount(table.replacements)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  )
}

export function WordPressSearchReplace({ site }: { site: Site }) {
  const form = useApiForm((data) =>
    unwrap(
      api.POST('/api/v1/sites/{id}/wordpress/search-replace', {
        params: { path: { id: site.id } },
        body: {
          from: textOf(data, 'from') ?? '',
          to: textOf(data, 'to'),
          dryRun: data.get('dryRun') === 'true',
        },
      }),
    ),
  )
  return (
    <Section title="Search and replace">
      <form onSubmit={form.submit} noValidate>
        <TextField
          form={form}
          name="from"
          label="Old address"
          placeholder="http://old.example.com"
          hint="A whole origin: http://old.example would also match http://old.example.com."
          autoComplete="off"
        />
        <TextField
          form={form}
          name="to"
          label="New address"
          placeholder={`http://${site.domain}`}
          hint="Optional; default the site’s address as WordPress knows it."
          autoComplete="off"
        />
        <CheckboxField
          form={form}
          name="dryRun"
          label="Dry run (count only, change nothing)"
          defaultChecked
        />
        <FormFooter form={form}>Search and replace</FormFooter>
      </form>
      {form.result && !form.pending ? <Outcome result={form.result} /> : null}
    </Section>
  )
}
