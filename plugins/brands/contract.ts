// The brands plugin's public contract: the brand schema, its white-label theme, the public branding, the scopes, and
// the host names brands' sign-in pages are on.

import { type Db, defineDependents, defineService, type Static, t } from '../../core/index.ts'

/** The colours a brand has until its staff choose others (existing brands were given them too). */
export const defaultTheme = {
  logo: null,
  primaryColor: '#1d4ed8',
  accentColor: '#0f766e',
} as const

/** A colour of a theme as it is stored and answered: `#rrggbb`, lower case. */
const StoredColor = (description: string) =>
  t.String({ pattern: '^#[0-9a-f]{6}$', description, examples: ['#1d4ed8'] })

/** How the web console looks for a brand's users: its logo and two colours. */
export const BrandTheme = t.Object(
  {
    logo: t.Union([t.String({ description: 'A `data:` URL of the image (base64).' }), t.Null()], {
      description:
        'The logo as a `data:` URL (`data:image/png;base64,…`; PNG, JPEG, WebP or SVG, at most 128 KiB of image), or null for none.',
    }),
    primaryColor: StoredColor(
      `The main colour of the console, \`#rrggbb\`. Default \`${defaultTheme.primaryColor}\`.`,
    ),
    accentColor: StoredColor(
      `The colour of highlights, \`#rrggbb\`. Default \`${defaultTheme.accentColor}\`.`,
    ),
  },
  { $id: 'BrandTheme' },
)
export type BrandTheme = Static<typeof BrandTheme>

/** A brand: a white-label reseller whose staff see only its customers. */
export const Brand = t.Object(
  {
    id: t.String({ description: 'Identifier, `brd_…`.' }),
    name: t.String({ description: 'Display name, unique.' }),
    isDefault: t.Boolean({
      description: 'The brand customers get when none is named (one per installation).',
    }),
    theme: BrandTheme,
    hostnames: t.Array(t.String({ description: 'A host name, lower case.' }), {
      maxItems: 20,
      description:
        'Host names on which the sign-in page shows this brand (`panel.reseller.example`); each belongs to one brand at most.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Brand' },
)
export type Brand = Static<typeof Brand>

/** What anyone may know of a brand to show its sign-in page: `GET /api/v1/branding`. */
export const Branding = t.Object(
  {
    brandId: t.String({ description: 'The brand shown, `brd_…`.' }),
    name: t.String({ description: 'Its display name.' }),
    theme: BrandTheme,
  },
  { $id: 'Branding' },
)
export type Branding = Static<typeof Branding>

/** Scope names the plugin declares (all staff scopes). */
export const brandScopes = {
  read: 'brand:read',
  create: 'brand:create',
  manage: 'brand:manage',
} as const

/** The host names brands' sign-in pages are on, for plugins that must keep them for the brands. */
export interface BrandHostnames {
  /**
   * Which of `hostnames` (lower case, without a trailing dot) are some brand's, read in `db` (a transaction's, to
   * decide with what it writes). A site's domain may not be one: a customer would take a brand's sign-in host.
   */
  taken(db: Db, hostnames: readonly string[]): Promise<string[]>
}

export const brandHostnames = defineService<BrandHostnames>({
  id: 'brands.hostnames',
  owner: 'brands',
  description: 'Which host names are brands’ sign-in hosts, so no site takes one.',
})

/** A brand as its dependents see it when it is to be deleted. */
export interface BrandRef {
  readonly id: string
  readonly name: string
}

/**
 * What keeps a brand: plugins whose records belong to a brand (plans, webhook endpoints) count them in `blocking`;
 * while any counts more than 0, `DELETE /brands/{id}` is refused with 409 `brand_in_use` naming them. The brands
 * plugin counts the kernel's own (customers, staff).
 * @example context.extensionPoint(brandDependents).add({ name: 'billing.plans', blocking: (db, brand) => countPlans(db, brand.id) })
 */
export const brandDependents = defineDependents<BrandRef>({
  id: 'brands.dependents',
  owner: 'brands',
  description: 'What keeps a brand from being deleted (its plans, webhook endpoints, …).',
})
