// Brand operations: platform staff create brands; brand staff see and change only their own (name, theme, host names).

import {
  type Caller,
  defineRoute,
  fieldProblem,
  newId,
  nonBlankText,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { Brand, brandScopes } from '../contract.ts'
import { BrandHostname, ThemeColor } from '../formats.ts'
import { canonicalHostname, canonicalHostnames, maxHostnames } from '../hostnames.ts'
import { checkLogo, logoMaxLength } from '../logo.ts'
import { brandsProblems } from '../problems.ts'
import {
  type BrandChange,
  brandsQuery,
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

/** The brand a caller may see: all for platform staff, its own for brand staff. */
function ownBrandOnly(caller: Caller): string | null {
  return caller.kind === 'platform' ? null : (caller.user.brandId ?? '')
}

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

/** The brands routes. */
export function brandRoutes({ db, transaction }: PluginContext): RouteDefinition[] {
  const visibleBrand = async (caller: Caller, id: string) => {
    const own = ownBrandOnly(caller)
    return orNotFound(own === null || own === id ? await findBrand(db, id) : null)
  }
  return [
    defineRoute({
      method: 'POST',
      path: '/brands',
      operationId: 'createBrand',
      idempotent: true,
      summary: 'Create a brand',
      description:
        'Platform staff only: a brand is a white-label reseller with its own staff and customers. It starts with the default theme and no host names (change them with `PATCH`).',
      scope: brandScopes.create,
      staff: true,
      body: BrandBody,
      responses: {
        201: { description: 'The new brand.', schema: Brand, headers: { Location: 'URL of the brand.' } },
      },
      problems: [brandsProblems.brand_name_taken],
      async handler({ body, audit }) {
        const name = body.name.trim()
        const row = newBrandRow(newId('brd'), name, nowIso())
        await transaction(async (trx) => {
          if (await nameTaken(trx, name)) throw new Problem(brandsProblems.brand_name_taken)
          await insertBrand(trx, row)
          await audit(trx, {
            action: 'brand.create',
            subject: { type: 'brand', id: row.id },
            customerId: null,
            brandId: row.id,
            details: { name },
          })
        })
        return Reply.created(toBrand(row), `/brands/${row.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/brands',
      operationId: 'listBrands',
      summary: 'List brands',
      description: 'Platform staff see every brand; brand staff their own.',
      scope: brandScopes.read,
      staff: true,
      list: { item: Brand, toItem: toBrand },
      handler({ caller }) {
        const own = ownBrandOnly(caller)
        return own === null ? brandsQuery(db) : brandsQuery(db).where('id', '=', own)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/brands/:id',
      operationId: 'getBrand',
      summary: 'Read a brand',
      scope: brandScopes.read,
      staff: true,
      params: { id: 'brd' },
      responses: { 200: { description: 'The brand.', schema: Brand } },
      handler: ({ caller, params }) => visibleBrand(caller, params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/brands/:id',
      operationId: 'updateBrand',
      summary: 'Change a brand’s name, theme or host names',
      description:
        'Platform staff change any brand, brand staff their own. Give at least one of `name`, `theme` (any of `logo`, `primaryColor`, `accentColor`; `logo: null` removes the logo) and `hostnames` (replaces the list). The logo is checked for real: its bytes must be the declared image type, and an SVG may hold no script, event handler or reference outside itself. A host name shows one brand only.',
      scope: brandScopes.manage,
      staff: true,
      params: { id: 'brd' },
      body: UpdateBrandBody,
      responses: { 200: { description: 'The brand.', schema: Brand } },
      problems: brandChangeProblems,
      async handler({ caller, params, body, audit }) {
        const { id } = await visibleBrand(caller, params.id)
        const change = changeOf(body)
        return transaction(async (trx) => {
          const before = orNotFound(await findBrand(trx, id))
          if (change.name !== undefined && (await nameTaken(trx, change.name, id)))
            throw new Problem(brandsProblems.brand_name_taken)
          if (change.hostnames !== undefined) {
            const taken = await hostnamesTaken(trx, change.hostnames, id)
            if (taken.size > 0) throw hostnamesTakenProblem(body.hostnames ?? [], taken)
          }
          await updateBrand(trx, id, change, nowIso())
          const after = orNotFound(await findBrand(trx, id))
          await audit(trx, {
            action: 'brand.update',
            subject: { type: 'brand', id },
            customerId: null,
            brandId: id,
            details: changedFields(before, after),
          })
          return after
        })
      },
    }),
  ]
}
