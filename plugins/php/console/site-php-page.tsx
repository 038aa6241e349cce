// A site's PHP: the version it runs (one its node has) and each setting as it runs with it, with its default and
// the highest value the site's plan allows; whoever holds `php:manage` changes them (an empty field takes the
// default again), each refusal shown at its field.

import { useQuery } from '@tanstack/react-query'
import {
  CheckboxField,
  ErrorNotice,
  Facts,
  FormFooter,
  Loading,
  SavedNotice,
  Section,
  SelectField,
  TextField,
  textOf,
  unchanged,
  unwrap,
  useEditForm,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type SitePhp = Schemas['SitePhp']
type Body = Schemas['SitePhpBody']
type Settings = NonNullable<Body['settings']>
type Name = keyof SitePhp['settings']

/** The settings in the order the form shows them, with their labels and kinds. */
const fields: readonly { name: Name; label: string; kind: 'size' | 'integer' | 'boolean'; unit?: string }[] =
  [
    { name: 'memory_limit', label: 'Memory limit', kind: 'size', unit: 'MB' },
    { name: 'upload_max_filesize', label: 'Largest upload', kind: 'size', unit: 'MB' },
    { name: 'post_max_size', label: 'Largest request body', kind: 'size', unit: 'MB' },
    { name: 'max_execution_time', label: 'Max execution time (s)', kind: 'integer', unit: 's' },
    { name: 'max_input_time', label: 'Max input time (s)', kind: 'integer', unit: 's' },
    { name: 'max_input_vars', label: 'Max input variables', kind: 'integer' },
    { name: 'max_file_uploads', label: 'Max files per upload', kind: 'integer' },
    { name: 'display_errors', label: 'Display errors in pages', kind: 'boolean' },
  ]

/** The hint under a field: its default and the most its plan allows. */
function hintOf(php: SitePhp, name: Name, unit: string | undefined): string {
  const allowed = php.allowed[name]
  const most =
    allowed && allowed.maximum !== null
      ? ` At most ${allowed.maximum}${unit === 'MB' ? 'M' : unit === 's' ? ' s' : ''}${allowed.cap ? ` (your plan’s ${allowed.cap})` : ''}.`
      : ''
  return `Default ${String(php.defaults[name])}; empty takes the default.${most}`
}

/** The body from the form: only what differs from what the site runs; an emptied own setting is null. */
function bodyOf(php: SitePhp, data: FormData): Body {
  const settings: Record<string, string | number | boolean | null> = {}
  for (const { name, kind } of fields) {
    const own = php.own.includes(name)
    if (kind === 'boolean') {
      const on = data.get(`settings.${name}`) === 'on'
      if (on !== php.settings[name]) settings[name] = on
      continue
    }
    const text = textOf(data, `settings.${name}`)
    if (text === undefined) {
      if (own) settings[name] = null
      continue
    }
    const value = kind === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text
    if (String(value) !== String(php.settings[name])) settings[name] = value
  }
  const version = textOf(data, 'version') ?? null
  return {
    ...(version !== php.ownVersion ? { version } : {}),
    ...(Object.keys(settings).length > 0 ? { settings: settings as Settings } : {}),
  }
}

/** The site's PHP page. */
export function SitePhpPage({ id }: { id: string }) {
  const { can } = useSession()
  const php = useQuery(api.query('/api/v1/sites/{id}/php', { params: { path: { id } } }))
  if (php.isPending) return <Loading />
  if (php.isError) return <ErrorNotice error={php.error} />
  const current = php.data
  return (
    <Section title="PHP">
      <Facts
        items={[
          ['Version', current.version ?? 'the node’s default'],
          ['Versions on its node', current.availableVersions.join(', ') || 'none reported'],
          ...fields.map(
            ({ name, label }) =>
              [
                label,
                <span key={name} data-setting={name}>
                  {String(current.settings[name])}{' '}
                  <span className="muted">
                    ({current.own.includes(name) ? 'set for this site' : 'default'})
                  </span>
                </span>,
              ] as [string, React.ReactNode],
          ),
        ]}
      />
      {can('php:manage') ? <PhpForm id={id} current={current} /> : null}
    </Section>
  )
}

function PhpForm({ id, current }: { id: string; current: SitePhp }) {
  const form = useEditForm(async (data) => {
    const body = bodyOf(current, data)
    if (Object.keys(body).length === 0) return unchanged
    return unwrap(api.PATCH('/api/v1/sites/{id}/php', { params: { path: { id } }, body }))
  })
  return (
    <form
      key={JSON.stringify(current.settings) + current.ownVersion}
      onSubmit={form.submit}
      noValidate
      data-testid="php-form"
    >
      <SelectField
        form={form}
        name="version"
        label="PHP version"
        defaultValue={current.ownVersion ?? ''}
        options={[
          {
            value: '',
            label: `The node’s default${current.availableVersions.at(-1) ? ` (${current.availableVersions.at(-1)})` : ''}`,
          },
          ...current.availableVersions.map((version) => ({ value: version, label: version })),
        ]}
      />
      {fields.map(({ name, label, kind, unit }) =>
        kind === 'boolean' ? (
          <CheckboxField
            key={name}
            form={form}
            name={`settings.${name}`}
            label={label}
            defaultChecked={current.settings[name] === true}
            hint={`Default ${current.defaults[name] ? 'on' : 'off'}. Errors are logged either way; never show them on a live site.`}
          />
        ) : (
          <TextField
            key={name}
            form={form}
            name={`settings.${name}`}
            label={label}
            inputMode={kind === 'integer' ? 'numeric' : 'text'}
            defaultValue={current.own.includes(name) ? String(current.settings[name]) : ''}
            placeholder={String(current.defaults[name])}
            hint={hintOf(current, name, unit)}
          />
        ),
      )}
      <FormFooter form={form}>Save PHP settings</FormFooter>
      <SavedNotice form={form} />
    </form>
  )
}
