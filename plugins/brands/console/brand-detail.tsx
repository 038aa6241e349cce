// A brand and its look: name, logo, colours and the host names whose sign-in page wears it. Brand staff edit their
// own brand; the preview shows the colours as the app will use them.

import { useQuery } from '@tanstack/react-query'
import { type ChangeEvent, useState } from 'react'
import {
  CheckboxField,
  DeleteResource,
  ErrorNotice,
  Facts,
  FormProblem,
  formatTime,
  Loading,
  navigate,
  PageHeader,
  SavedNotice,
  Section,
  SubmitButton,
  TextAreaField,
  TextField,
  textOf,
  textOn,
  touch,
  unwrap,
  useEditForm,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Brand = Schemas['Brand']
type UpdateBrand = Schemas['UpdateBrandBody']

/** Reads a chosen image file as a `data:` URL (the API stores the logo as one and checks it). */
function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })
}

function ThemePreview({ primary, accent }: { primary: string; accent: string }) {
  return (
    <div className="brand-preview">
      <span className="brand-swatch" style={{ background: primary, color: textOn(primary) }}>
        Primary {primary}
      </span>
      <span className="brand-swatch" style={{ background: accent, color: textOn(accent) }}>
        Accent {accent}
      </span>
    </div>
  )
}

function EditBrand({ brand }: { brand: Brand }) {
  const [logo, setLogo] = useState<string | null | undefined>(undefined)
  const [primary, setPrimary] = useState(brand.theme.primaryColor)
  const [accent, setAccent] = useState(brand.theme.accentColor)
  const form = useEditForm(
    (data) => {
      const theme: NonNullable<UpdateBrand['theme']> = {
        primaryColor: textOf(data, 'theme.primaryColor') ?? '',
        accentColor: textOf(data, 'theme.accentColor') ?? '',
      }
      if (data.get('removeLogo') === 'true') theme.logo = null
      else if (logo !== undefined) theme.logo = logo
      const hostnames = String(data.get('hostnames') ?? '')
        .split(/[\s,]+/)
        .filter(Boolean)
      return unwrap(
        api.PATCH('/api/v1/brands/{id}', {
          params: { path: { id: brand.id } },
          body: { name: textOf(data, 'name') ?? '', theme, hostnames },
        }),
      )
    },
    {
      onSaved: () => {
        setLogo(undefined)
        // The brand's look is also what the public branding answers, which the app wears.
        touch('/api/v1/branding')
      },
    },
  )
  const onLogo = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    setLogo(file ? await readAsDataUrl(file) : undefined)
  }
  const shownLogo = logo ?? brand.theme.logo
  // The logo is a file read into the body, not a form field: it registers its place for refusals by hand, so the
  // banner does not repeat its error and the focus finds it.
  form.register('theme.logo')
  const logoError = form.problem?.fieldMessage('theme.logo') ?? null
  return (
    <Section title="Name and look">
      <form onSubmit={form.submit} noValidate>
        <TextField form={form} name="name" label="Name" defaultValue={brand.name} required />
        <TextField
          form={form}
          name="theme.primaryColor"
          label="Primary colour"
          hint="#rrggbb: the header, buttons and the sign-in page. Text on it is black or white, whichever reads better."
          defaultValue={brand.theme.primaryColor}
          onChange={(event) => setPrimary(event.target.value)}
        />
        <TextField
          form={form}
          name="theme.accentColor"
          label="Accent colour"
          hint="#rrggbb: focus rings and progress."
          defaultValue={brand.theme.accentColor}
          onChange={(event) => setAccent(event.target.value)}
        />
        {/^#[0-9a-f]{6}$/i.test(primary) && /^#[0-9a-f]{6}$/i.test(accent) ? (
          <ThemePreview primary={primary} accent={accent} />
        ) : null}
        <div className={`field${logoError ? ' has-error' : ''}`}>
          <label htmlFor="brand-logo">Logo</label>
          <input
            id="brand-logo"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/svg+xml"
            onChange={onLogo}
            aria-invalid={logoError ? true : undefined}
            aria-describedby={logoError ? 'brand-logo-hint brand-logo-error' : 'brand-logo-hint'}
          />
          <p className="hint" id="brand-logo-hint">
            PNG, JPEG, WebP or SVG, at most 128 KiB.
          </p>
          {logoError ? (
            <p className="field-error" id="brand-logo-error">
              {logoError}
            </p>
          ) : null}
          {shownLogo ? (
            <img src={shownLogo} alt={`${brand.name} logo`} className="brand-logo-preview" />
          ) : null}
        </div>
        {brand.theme.logo ? <CheckboxField form={form} name="removeLogo" label="Remove the logo" /> : null}
        <TextAreaField
          form={form}
          name="hostnames"
          label="Host names"
          hint="One per line: the sign-in page on these host names shows this brand (panel.reseller.example)."
          defaultValue={brand.hostnames.join('\n')}
          rows={3}
        />
        <FormProblem form={form} />
        <SubmitButton form={form}>Save brand</SubmitButton>
        <SavedNotice form={form} />
      </form>
    </Section>
  )
}

export function BrandDetail({ id }: { id: string }) {
  const session = useSession()
  const brand = useQuery(api.query('/api/v1/brands/{id}', { params: { path: { id } } }))
  if (brand.isPending) return <Loading />
  if (brand.isError)
    return (
      <>
        <PageHeader title="Brand" />
        <ErrorNotice error={brand.error} />
      </>
    )
  return (
    <>
      <PageHeader title={brand.data.name} subtitle={brand.data.isDefault ? 'The default brand' : undefined} />
      <Section title="Details">
        <Facts
          items={[
            ['Id', <code key="id">{brand.data.id}</code>],
            ['Host names', brand.data.hostnames.join(', ') || 'none'],
            ['Created', formatTime(brand.data.createdAt)],
            ['Updated', formatTime(brand.data.updatedAt)],
          ]}
        />
      </Section>
      {session.can('brand:manage') ? <EditBrand brand={brand.data} /> : null}
      {session.can('brand:manage') && !brand.data.isDefault ? (
        <Section title="Delete brand">
          <DeleteResource
            label="Delete brand"
            run={() => unwrap(api.DELETE('/api/v1/brands/{id}', { params: { path: { id } } }))}
            onDeleted={() => navigate('/brands')}
          >
            Only a brand nothing belongs to can be deleted: no customers, staff, plans or webhook endpoints.
            Its host names are freed.
          </DeleteResource>
        </Section>
      ) : null}
    </>
  )
}
