// Brand operations: platform staff create brands; brand staff see and change only their own (name, theme, host names).

import {
  type Dependent,
  type ExtensionRegistry,
  fieldProblem,
  newId,
  nonBlankText,
  nowIso,
  orNotFound,
  Problem,
  type RouteDefinition,
  recorded,
  refuseWhileBlocked,
  resourceRoutes,
  t,
} from '../../../core/index.ts'
import { Brand, type BrandRef, brandScopes } from '../contract.ts'
import { BrandHostname, ThemeColor } from '../formats.ts'
import { canonicalHostname, canonicalHostnames, maxHostnames } from '../hostnames.ts'
import { checkLogo, logoMaxLength } from '../logo.ts'
import { brandsProblems } from '../problems.ts'
import {
  type BrandChange,
  brands,
  deleteBrand,
  findBrand,
  hostnamesTaken,
  insertBrand,
  nameTaken,
  newBrandRow,
  toBrand,
  updateBrand,
} from '../repository.ts'

const Name = nonBlankText({ maxLength: 100, description: 'Display name, unique.' })

const BrandBody = t.Object({ name: Name }, { $id: 'BrandBody' })

const UpdateBrandBody = t.Object(
  {
    name: t.Optional(Name),
    theme: t.Optional(
      t.Object(
        {
          logo: t.Optional(
            t.Union([t.String({ maxLength: logoMaxLength }), t.Null()], {
              description:
                'A `data:` URL (`data:image/png;base64,…`) of a PNG, JPEG, WebP or SVG image of at most 128 KiB; null removes the logo.',
            }),
          ),
          primaryColor: t.Optional(
            ThemeColor({ maxLength: 7, description: '`#rrggbb`; stored in lower case.' }),
          ),
          accentColor: t.Optional(
            ThemeColor({ maxLength: 7, description: '`#rrggbb`; stored in lower case.' }),
          ),
        },
        { description: 'The theme fields to change; omitted ones stay as they are.' },
      ),
    ),
    hostnames: t.Optional(
      t.Array(BrandHostname({ maxLength: 253, examples: ['panel.reseller.example'] }), {
        maxItems: maxHostnames,
        description:
          'Replaces the brand’s host names (at most 20; `[]` for none): DNS names without scheme or port, stored in lower case, repeats dropped.',
      }),
    ),
  },
  {
    $id: 'UpdateBrandBody',
    description: 'Fields to change, at least one; omitted ones stay as they are.',
  },
)

const brandChangeProblems = [
  brandsProblems.brand_name_taken,
  brandsProblems.empty_brand_update,
  brandsProblems.invalid_logo,
  brandsProblems.logo_type_mismatch,
  brandsProblems.logo_too_large,
  brandsProblems.unsafe_svg_logo,
  brandsProblems.brand_hostname_taken,
]

/** The logo as stored, or a 422 at `body.theme.logo` saying why not. */
function checkedLogo(given: string): string {
  const checked = checkLogo(given)
  if ('refused' in checked)
    throw fieldProblem(brandsProblems[checked.refused.code], 'body.theme.logo', checked.refused.message)
  return checked.logo
}

/** The change a PATCH body asks for, checked and canonical; 422 `empty_brand_update` when it asks for none. */
function changeOf(body: {
  name?: string
  theme?: { logo?: string | null; primaryColor?: string; accentColor?: string }
  hostnames?: string[]
}): BrandChange {
  const { name, theme = {}, hostnames } = body
  if (name === undefined && hostnames === undefined && Object.keys(theme).length === 0)
    throw fieldProblem(brandsProblems.empty_brand_update, 'body')
  const themeChange = {
    ...(theme.logo === undefined ? {} : { logo: theme.logo === null ? null : checkedLogo(theme.logo) }),
    ...(theme.primaryColor === undefined ? {} : { primaryColor: theme.primaryColor.toLowerCase() }),
    ...(theme.accentColor === undefined ? {} : { accentColor: theme.accentColor.toLowerCase() }),
  }
  return {
    ...(name === undefined ? {} : { name: name.trim() }),
    ...(Object.keys(themeChange).length === 0 ? {} : { theme: themeChange }),
    ...(hostnames === undefined ? {} : { hostnames: canonicalHostnames(hostnames) }),
  }
}

/** What the audit entry says changed: the fields that differ, the logo as `changed` or `removed` (never its bytes). */
function changedFields(before: Brand, after: Brand): Record<string, unknown> {
  const details: Record<string, unknown> = {}
  if (after.name !== before.name) details.name = after.name
  if (after.theme.logo !== before.theme.logo) details.logo = after.theme.logo === null ? 'removed' : 'changed'
  if (after.theme.primaryColor !== before.theme.primaryColor) details.primaryColor = after.theme.primaryColor
  if (after.theme.accentColor !== before.theme.accentColor) details.accentColor = after.theme.accentColor
  if (after.hostnames.join() !== before.hostnames.join()) details.hostnames = after.hostnames
  return details
}

/** 409 `brand_hostname_taken` naming the first host name another brand has, each at its place in the body. */
function hostnamesTakenProblem(given: readonly string[], taken: ReadonlySet<string>): Problem {
  const errors: { location: string; message: string; code: string }[] = []
  for (const [index, name] of given.entries()) {
    const canonical = canonicalHostname(name) ?? ''
    if (taken.has(canonical))
      errors.push({
        location: `body.hostnames.${index}`,
        message: `${canonical} belongs to another brand`,
        code: brandsProblems.brand_hostname_taken.code,
      })
  }
  const [first] = taken
  return new Problem(brandsProblems.brand_hostname_taken, {
    detail: `Another brand already has the host name ${first}.`,
    errors,
  })
}

/** The brands routes; `dependents` are what keeps a brand (its customers, staff, plans, …). */
export function brandRoutes(dependents: ExtensionRegistry<Dependent<BrandRef>>): RouteDefinition[] {
  return resourceRoutes({
    item: Brand,
    name: 'brand',
    path: '/brands',
    key: { id: 'brd' },
    scopes: { read: brandScopes.read, manage: brandScopes.manage, create: brandScopes.create },
    staff: true,
    table: { rows: brands, toItem: toBrand },
    list: { summary: 'List brands', description: 'Platform staff see every brand; brand staff their own.' },
    read: { summary: 'Read a brand' },
    create: {
      summary: 'Create a brand',
      description:
        'Platform staff only: a brand is a white-label reseller with its own staff and customers. It starts with the default theme and no host names (change them with `PATCH`).',
      body: BrandBody,
      problems: [brandsProblems.brand_name_taken],
      record: { event: null, details: ({ name }) => ({ name }) },
      async handler({ trx, body }) {
        const row = newBrandRow(newId('brd'), body.name.trim(), nowIso())
        if (await nameTaken(trx, row.name)) throw new Problem(brandsProblems.brand_name_taken)
        await insertBrand(trx, row)
        // A brand's entries are its own staff's to read.
        return recorded(toBrand(row), { brandId: row.id })
      },
    },
    update: {
      summary: 'Change a brand’s name, theme or host names',
      description:
        'Platform staff change any brand, brand staff their own. Give at least one of `name`, `theme` (any of `logo`, `primaryColor`, `accentColor`; `logo: null` removes the logo) and `hostnames` (replaces the list). The logo is checked for real: its bytes must be the declared image type, and an SVG may hold no script, event handler or reference outside itself. A host name shows one brand only.',
      body: UpdateBrandBody,
      problems: brandChangeProblems,
      responses: { 200: { description: 'The brand.', schema: Brand } },
      record: { event: null },
      async handler({ trx, row, body }) {
        const change = changeOf(body)
        if (change.name !== undefined && (await nameTaken(trx, change.name, row.id)))
          throw new Problem(brandsProblems.brand_name_taken)
        if (change.hostnames !== undefined) {
          const taken = await hostnamesTaken(trx, change.hostnames, row.id)
          if (taken.size > 0) throw hostnamesTakenProblem(body.hostnames ?? [], taken)
        }
        await updateBrand(trx, row.id, change, nowIso())
        const after = orNotFound(await findBrand(trx, row.id))
        return recorded(after, { brandId: row.id, details: changedFields(toBrand(row), after) })
      },
    },
    remove: {
      summary: 'Delete a brand',
      description:
        'Only once nothing belongs to the brand: refused with 409 `brand_in_use` while it has customers, staff (so in practice only platform staff delete a brand), plans, webhook endpoints or other records the installed plugins count, named in `blockers`; the default brand is never deleted (409 `default_brand`). Its host names are freed. Audited as `brand.delete`; the brand then answers 404.',
      problems: [brandsProblems.brand_in_use, brandsProblems.default_brand],
      record: { event: null },
      async handler({ trx, row }) {
        if (row.is_default === 1) throw new Problem(brandsProblems.default_brand)
        await refuseWhileBlocked(dependents, trx, row, brandsProblems.brand_in_use, 'The brand')
        await deleteBrand(trx, row.id)
        return recorded(toBrand(row), { brandId: null, details: { name: row.name } })
      },
    },
  })
}
