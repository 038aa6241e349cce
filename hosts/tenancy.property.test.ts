// Random worlds, tokens and filters: no list or read answers a row outside the caller's view, nor misses one.

import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { createUser, type User } from '../core/host.ts'
import { createTestPanel, type TestPanel } from './testing/index.ts'

const api = '/api/v1'
const password = 'correct horse battery staple'
const worldCount = 8
const defaultPageSize = 20

const roles = ['owner', 'admin', 'developer', 'billing'] as const
type Role = (typeof roles)[number]
type CallerKind = 'platform' | 'brand' | 'member'

// The scope model, written out from the issue rather than read from the panel, so the two can disagree.
const siteScopes = ['site:read', 'site:create', 'site:update', 'site:delete', 'site:files', 'site:shell']
const databaseScopes = ['database:read', 'database:manage']
const certificateScopes = ['certificate:read', 'certificate:manage']
const jobScopes = ['job:read', 'job:cancel']
const billingScopes = ['billing:read', 'billing:manage']
const backupScopes = ['backup:read', 'backup:manage']
const stagingScopes = ['staging:read', 'staging:manage']
// The site settings plugins' (PHP, cache, logs, cron): hosting work, held as the backups' are.
const siteSettingScopes = [
  'php:read',
  'php:manage',
  'cache:read',
  'cache:manage',
  'log:read',
  'cron:read',
  'cron:manage',
]
// The audit log is a customer scope that no role but owner and admin holds (it belongs to no role's resources).
const teamScopes = [
  'customer:read',
  'customer:manage',
  'members:manage',
  'audit:read',
  ...siteScopes,
  ...databaseScopes,
  ...certificateScopes,
  ...jobScopes,
  ...billingScopes,
  ...backupScopes,
  ...stagingScopes,
  ...siteSettingScopes,
]
const staffScopes = [
  'user:read',
  'user:manage',
  'brand:read',
  'brand:manage',
  'customer:create',
  'customer:delete',
  'plan:read',
  'plan:manage',
  'webhook:read',
  'webhook:manage',
  // Suspending a site by hand is an administrative act (abuse): a staff scope, held by no team role.
  'site:suspend',
]
const platformOnlyScopes = [
  'brand:create',
  'node:read',
  'node:manage',
  'database-server:read',
  'database-server:manage',
  'backup-target:read',
  'backup-target:manage',
  'backup-policy:manage',
]
const scopesOfRole: Readonly<Record<Role, readonly string[]>> = {
  owner: teamScopes,
  admin: teamScopes.filter((scope) => scope !== 'billing:manage'),
  developer: [
    ...siteScopes,
    ...databaseScopes,
    ...certificateScopes,
    ...jobScopes,
    ...backupScopes,
    ...stagingScopes,
    ...siteSettingScopes,
  ],
  billing: ['customer:read', ...billingScopes],
}

/** Scopes a random narrowed token may carry: those the read endpoints need, and some that open nothing here. */
const tokenScopeMenu = [
  'customer:read',
  'members:manage',
  'site:read',
  'brand:read',
  'user:read',
  'customer:manage',
  'site:create',
]
const siteStatuses = ['provisioning', 'active', 'suspended', 'failed', 'deleting']

// ---------------------------------------------------------------------------------------------------------------
// Plans: what fast-check generates (and shrinks). Indices are taken modulo the size of what they pick from.

/** One of a world's things, a well-formed id of nothing, or a string that is not an id. */
type Pick = { readonly existing: number } | 'ghost' | 'malformed'
type DomainPick = { readonly site: number; readonly shouted: boolean } | 'ghost'
/** A token's customer limit: none, a customer that does not exist, any customer, or one the user can see. */
type LimitPlan = null | 'ghost' | { readonly any: number } | { readonly own: number }

interface PagePlan {
  /** `limit` to send; null sends none (20). */
  readonly limit: number | null
  /** Follow `nextCursor` to the last page. */
  readonly walk: boolean
  /** Start from a cursor handed to another token instead (picked modulo the cursors seen). */
  readonly foreignCursor: number | null
}

type CallPlan =
  | {
      readonly kind: 'listCustomers'
      readonly brand: Pick | null
      readonly misspelt: boolean
      readonly page: PagePlan
    }
  | { readonly kind: 'readCustomer'; readonly target: Pick }
  | { readonly kind: 'listMembers'; readonly target: Pick; readonly page: PagePlan }
  | {
      readonly kind: 'listSites'
      readonly customer: Pick | null
      readonly status: string | null
      readonly type: string | null
      readonly domain: DomainPick | null
      readonly misspelt: boolean
      readonly page: PagePlan
    }
  | { readonly kind: 'readSite'; readonly target: Pick }
  | { readonly kind: 'listBrands'; readonly page: PagePlan }
  | { readonly kind: 'readBrand'; readonly target: Pick }
  | { readonly kind: 'listUsers'; readonly page: PagePlan }
  | { readonly kind: 'readUser'; readonly target: Pick }
  | { readonly kind: 'listTokens'; readonly page: PagePlan }
  | { readonly kind: 'readMember'; readonly target: Pick; readonly member: Pick }
  | { readonly kind: 'readToken'; readonly target: Pick }

/** Between reads, platform staff give a plain user a role on a customer, or take it away (`role: null`). */
interface TeamChangePlan {
  readonly kind: 'changeTeam'
  readonly member: number
  readonly customer: number
  readonly role: Role | null
}

interface TokenPlan {
  readonly scopes: readonly string[]
  readonly limit: LimitPlan
}

interface RequestPlan {
  readonly caller: number
  readonly token: TokenPlan
  readonly call: CallPlan | TeamChangePlan
}

interface WorldPlan {
  /** Brands beside the default one. */
  readonly extraBrands: number
  readonly customers: readonly { readonly brand: number; readonly sites: number }[]
  /** One brand staff user per entry, of the brand at that slot. */
  readonly brandStaff: readonly number[]
  /** Plain users, each with the teams they join. */
  readonly members: readonly (readonly { readonly customer: number; readonly role: Role }[])[]
}

const pickArbitrary: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 40 }).map((existing) => ({ existing })) },
  { weight: 1, arbitrary: fc.constant('ghost' as const) },
  { weight: 1, arbitrary: fc.constant('malformed' as const) },
)
const filterArbitrary = fc.option(pickArbitrary, { nil: null, freq: 2 })
const pageArbitrary: fc.Arbitrary<PagePlan> = fc.record({
  limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 3 }),
  walk: fc.boolean(),
  foreignCursor: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
})
const misspeltArbitrary = fc.oneof(
  { weight: 15, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
)
const domainArbitrary: fc.Arbitrary<DomainPick> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ site: fc.nat({ max: 40 }), shouted: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant('ghost' as const) },
)

const callArbitrary: fc.Arbitrary<CallPlan | TeamChangePlan> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('listCustomers' as const),
      brand: filterArbitrary,
      misspelt: misspeltArbitrary,
      page: pageArbitrary,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('readCustomer' as const), target: pickArbitrary }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('listMembers' as const),
      target: pickArbitrary,
      page: pageArbitrary,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('listSites' as const),
      customer: filterArbitrary,
      status: fc.option(fc.constantFrom(...siteStatuses), { nil: null, freq: 2 }),
      type: fc.option(fc.constantFrom('wordpress', 'static'), { nil: null, freq: 2 }),
      domain: fc.option(domainArbitrary, { nil: null, freq: 2 }),
      misspelt: misspeltArbitrary,
      page: pageArbitrary,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('readSite' as const), target: pickArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('listBrands' as const), page: pageArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('readBrand' as const), target: pickArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('listUsers' as const), page: pageArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('readUser' as const), target: pickArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('listTokens' as const), page: pageArbitrary }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('readMember' as const),
      target: pickArbitrary,
      member: pickArbitrary,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('readToken' as const), target: pickArbitrary }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('changeTeam' as const),
      member: fc.nat({ max: 40 }),
      customer: fc.nat({ max: 40 }),
      role: fc.option(fc.constantFrom(...roles), { nil: null, freq: 3 }),
    }),
  },
)

const tokenArbitrary: fc.Arbitrary<TokenPlan> = fc.record({
  scopes: fc.oneof(
    { weight: 3, arbitrary: fc.constant(['*']) },
    { weight: 2, arbitrary: fc.subarray(tokenScopeMenu, { minLength: 1 }) },
  ),
  limit: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.nat({ max: 40 }).map((own) => ({ own })) },
    { weight: 1, arbitrary: fc.nat({ max: 40 }).map((any) => ({ any })) },
    { weight: 1, arbitrary: fc.constant('ghost' as const) },
  ),
})

const requestArbitrary: fc.Arbitrary<RequestPlan> = fc.record({
  caller: fc.nat({ max: 40 }),
  token: tokenArbitrary,
  call: callArbitrary,
})

/**
 * A world's requests. They are not shrunk (the world is): the error names the failing one, its caller and the
 * world, and the counterexample prints as a count rather than hundreds of plans.
 */
const requestsArbitrary = fc
  .noShrink(fc.array(requestArbitrary, { minLength: 250, maxLength: 300 }))
  .map((requests) =>
    Object.assign(requests, {
      [fc.toStringMethod]: () => `${requests.length} requests (the failing one is in the error)`,
    }),
  )

const worldArbitrary: fc.Arbitrary<WorldPlan> = fc.record({
  extraBrands: fc.integer({ min: 1, max: 3 }),
  customers: fc.array(fc.record({ brand: fc.nat({ max: 3 }), sites: fc.integer({ min: 0, max: 4 }) }), {
    minLength: 3,
    maxLength: 8,
  }),
  brandStaff: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
  members: fc.array(
    fc.uniqueArray(fc.record({ customer: fc.nat({ max: 7 }), role: fc.constantFrom(...roles) }), {
      selector: (membership) => membership.customer,
      maxLength: 4,
    }),
    { minLength: 2, maxLength: 5 },
  ),
})

// ---------------------------------------------------------------------------------------------------------------
// The world as built, and the model of who sees what, computed from it alone.

interface Membership {
  readonly customerId: string
  readonly userId: string
  readonly email: string
  readonly role: Role
}

interface Credential {
  readonly key: string
  readonly secret: string
  readonly id: string
  readonly user: User
  readonly scopes: readonly string[]
  readonly customerId: string | null
}

interface World {
  readonly tp: TestPanel
  readonly brands: readonly { readonly id: string; readonly isDefault: boolean }[]
  readonly customers: readonly { readonly id: string; readonly brandId: string; readonly name: string }[]
  readonly sites: readonly { readonly id: string; readonly customerId: string; readonly domain: string }[]
  /** Every user: the platform staff member first, then brand staff, then plain users. */
  readonly users: readonly User[]
  /** Teams as they are now: team changes between reads update them. */
  readonly memberships: Membership[]
  /** The platform staff token the world is built and changed with. */
  readonly builder: string
  /** Tokens minted so far, by what they were minted for. */
  readonly credentials: Map<string, Credential>
  /** Every cursor handed out, with the token it was handed to. */
  readonly cursors: { readonly owner: string; readonly cursor: string }[]
}

type Row = Readonly<Record<string, unknown>>
type Outcome =
  | { readonly status: 200; readonly rows: readonly Row[] }
  | { readonly status: 400 | 403 | 404 | 422; readonly code: string }

const kindOf = (user: User): CallerKind =>
  user.staffRole === 'platform' ? 'platform' : user.staffRole === 'brand' ? 'brand' : 'member'

const membershipsOf = (world: World, user: User) =>
  world.memberships.filter((membership) => membership.userId === user.id)

function nth<T>(items: readonly T[], index: number): T | undefined {
  return items.length === 0 ? undefined : items[index % items.length]
}

const ghostId = (prefix: string) => `${prefix}_${'Z'.repeat(26)}`

/** The id a pick names: an existing one, a well-formed id of nothing, or a malformed one. */
function idOf(items: readonly { readonly id: string }[], pick: Pick, prefix: string): string {
  if (pick === 'malformed') return `${prefix}_not-an-id`
  if (pick === 'ghost') return ghostId(prefix)
  return nth(items, pick.existing)?.id ?? ghostId(prefix)
}

function scopesHeld(world: World, user: User, limit: string | null): Set<string> {
  switch (kindOf(user)) {
    case 'platform':
      return new Set([...teamScopes, ...staffScopes, ...platformOnlyScopes])
    case 'brand':
      return new Set([...teamScopes, ...staffScopes])
    case 'member':
      return new Set(
        membershipsOf(world, user)
          .filter((membership) => limit === null || membership.customerId === limit)
          .flatMap((membership) => scopesOfRole[membership.role]),
      )
  }
}

/** The token's scopes narrowed to what its user holds (within its customer limit). */
function effectiveScopes(world: World, credential: Credential): Set<string> {
  const held = scopesHeld(world, credential.user, credential.customerId)
  if (credential.scopes.includes('*')) return held
  return new Set(credential.scopes.filter((scope) => held.has(scope)))
}

/** Whether `user` sees `customer` with `scope` at all, before any token limit. */
function userSees(world: World, user: User, customer: World['customers'][number], scope: string): boolean {
  switch (kindOf(user)) {
    case 'platform':
      return true
    case 'brand':
      return customer.brandId === user.brandId
    case 'member':
      return membershipsOf(world, user).some(
        (team) => team.customerId === customer.id && scopesOfRole[team.role].includes(scope),
      )
  }
}

/** The customers the credential may see with `scope`. */
function customersInView(world: World, credential: Credential, scope: string): Set<string> {
  if (!effectiveScopes(world, credential).has(scope)) return new Set()
  const inView = world.customers.filter(
    (customer) =>
      (credential.customerId === null || customer.id === credential.customerId) &&
      userSees(world, credential.user, customer, scope),
  )
  return new Set(inView.map((customer) => customer.id))
}

/** The customers a user can see at all, for tokens limited to "one of their own". */
function customersOfUser(world: World, user: User): readonly { readonly id: string }[] {
  switch (kindOf(user)) {
    case 'platform':
      return world.customers
    case 'brand':
      return world.customers.filter((customer) => customer.brandId === user.brandId)
    case 'member':
      return membershipsOf(world, user).map((membership) => ({ id: membership.customerId }))
  }
}

/** The refusal that comes before any data: staff areas, then the scope. */
function refusalOf(
  world: World,
  credential: Credential,
  route: { readonly staff: boolean; readonly scope: string | null },
): Outcome | null {
  if (route.staff && (kindOf(credential.user) === 'member' || credential.customerId !== null))
    return { status: 403, code: 'staff_only' }
  if (route.scope !== null && !effectiveScopes(world, credential).has(route.scope))
    return { status: 403, code: 'insufficient_scope' }
  return null
}

const customerFields = ['id', 'brandId']
const siteFields = ['id', 'customerId', 'domain', 'status', 'type']
const memberFields = ['userId', 'email', 'role']
const brandFields = ['id', 'isDefault']
const userFields = ['id', 'email', 'staffRole', 'brandId']
const tokenFields = ['id', 'customerId']

const userRow = (user: User): Row => ({
  id: user.id,
  email: user.email,
  staffRole: user.staffRole,
  brandId: user.brandId,
})
const siteRow = (site: World['sites'][number]): Row => ({
  ...site,
  status: 'provisioning',
  type: 'wordpress',
})
const memberRow = (membership: Membership): Row => ({
  userId: membership.userId,
  email: membership.email,
  role: membership.role,
})

/** A request to make and the answer the model expects. `page` is null for a read. */
interface Probe {
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly fields: readonly string[]
  readonly outcome: Outcome
  readonly page: PagePlan | null
}

const notFound: Outcome = { status: 404, code: 'not_found' }
const misspeltFilter: Outcome = { status: 422, code: 'validation_failed' }
const answer = (rows: readonly Row[], fields: readonly string[]): Outcome => {
  const key = fields[0] ?? 'id'
  const sorted = [...rows].sort((a, b) => (String(a[key]) < String(b[key]) ? -1 : 1))
  return { status: 200, rows: sorted }
}

function probeOf(world: World, credential: Credential, call: CallPlan): Probe {
  const refusal = (staff: boolean, scope: string | null) => refusalOf(world, credential, { staff, scope })
  const { user } = credential
  switch (call.kind) {
    case 'listCustomers': {
      const brandId = call.brand === null ? null : idOf(world.brands, call.brand, 'brd')
      const query: Record<string, string> = brandId === null ? {} : { brandId }
      if (call.misspelt) query.brand = world.brands[0]?.id ?? ''
      const inView = customersInView(world, credential, 'customer:read')
      const rows = world.customers
        .filter((customer) => inView.has(customer.id) && (brandId === null || customer.brandId === brandId))
        .map((customer) => ({ ...customer }))
      const outcome =
        refusal(false, 'customer:read') ?? (call.misspelt ? misspeltFilter : answer(rows, customerFields))
      return { path: '/customers', query, fields: customerFields, outcome, page: call.page }
    }
    case 'readCustomer': {
      const id = idOf(world.customers, call.target, 'cus')
      const customer = world.customers.find((candidate) => candidate.id === id)
      const visible = customer && customersInView(world, credential, 'customer:read').has(id)
      const outcome =
        refusal(false, 'customer:read') ?? (visible ? answer([{ ...customer }], customerFields) : notFound)
      return { path: `/customers/${id}`, query: {}, fields: customerFields, outcome, page: null }
    }
    case 'listMembers': {
      const id = idOf(world.customers, call.target, 'cus')
      const visible = customersInView(world, credential, 'members:manage').has(id)
      const team = world.memberships.filter((membership) => membership.customerId === id).map(memberRow)
      const outcome = refusal(false, 'members:manage') ?? (visible ? answer(team, memberFields) : notFound)
      return { path: `/customers/${id}/members`, query: {}, fields: memberFields, outcome, page: call.page }
    }
    case 'listSites': {
      const query: Record<string, string> = {}
      if (call.customer !== null) query.customerId = idOf(world.customers, call.customer, 'cus')
      if (call.status !== null) query.status = call.status
      if (call.type !== null) query.type = call.type
      if (call.domain !== null) {
        const site = call.domain === 'ghost' ? undefined : nth(world.sites, call.domain.site)
        const shouted = call.domain !== 'ghost' && call.domain.shouted
        const domain = site?.domain ?? 'nowhere.example.test'
        query.domain = shouted ? domain.toUpperCase() : domain
      }
      if (call.misspelt) query.customer = world.customers[0]?.id ?? ''
      const inView = customersInView(world, credential, 'site:read')
      const rows = world.sites
        .map(siteRow)
        .filter(
          (site) =>
            inView.has(String(site.customerId)) &&
            (query.customerId === undefined || site.customerId === query.customerId) &&
            (query.status === undefined || site.status === query.status) &&
            (query.type === undefined || site.type === query.type) &&
            (query.domain === undefined || site.domain === query.domain.toLowerCase()),
        )
      const outcome =
        refusal(false, 'site:read') ?? (call.misspelt ? misspeltFilter : answer(rows, siteFields))
      return { path: '/sites', query, fields: siteFields, outcome, page: call.page }
    }
    case 'readSite': {
      const id = idOf(world.sites, call.target, 'site')
      const site = world.sites.find((candidate) => candidate.id === id)
      const visible = site && customersInView(world, credential, 'site:read').has(site.customerId)
      const outcome =
        refusal(false, 'site:read') ?? (visible ? answer([siteRow(site)], siteFields) : notFound)
      return { path: `/sites/${id}`, query: {}, fields: siteFields, outcome, page: null }
    }
    case 'listBrands':
    case 'readBrand': {
      const brands = world.brands.filter((brand) => kindOf(user) === 'platform' || brand.id === user.brandId)
      const rows = brands.map((brand) => ({ ...brand }))
      if (call.kind === 'listBrands') {
        const outcome = refusal(true, 'brand:read') ?? answer(rows, brandFields)
        return { path: '/brands', query: {}, fields: brandFields, outcome, page: call.page }
      }
      const id = idOf(world.brands, call.target, 'brd')
      const row = rows.filter((brand) => brand.id === id)
      const outcome = refusal(true, 'brand:read') ?? (row.length > 0 ? answer(row, brandFields) : notFound)
      return { path: `/brands/${id}`, query: {}, fields: brandFields, outcome, page: null }
    }
    case 'listUsers':
    case 'readUser': {
      const brandCustomers = new Set(
        world.customers
          .filter((customer) => customer.brandId === user.brandId)
          .map((customer) => customer.id),
      )
      const visible = world.users.filter(
        (candidate) =>
          kindOf(user) === 'platform' ||
          candidate.brandId === user.brandId ||
          world.memberships.some(
            (membership) => membership.userId === candidate.id && brandCustomers.has(membership.customerId),
          ),
      )
      if (call.kind === 'listUsers') {
        const outcome = refusal(true, 'user:read') ?? answer(visible.map(userRow), userFields)
        return { path: '/users', query: {}, fields: userFields, outcome, page: call.page }
      }
      const id = idOf(world.users, call.target, 'usr')
      const row = visible.filter((candidate) => candidate.id === id).map(userRow)
      const outcome = refusal(true, 'user:read') ?? (row.length > 0 ? answer(row, userFields) : notFound)
      return { path: `/users/${id}`, query: {}, fields: userFields, outcome, page: null }
    }
    case 'readMember': {
      const id = idOf(world.customers, call.target, 'cus')
      const userId = idOf(world.users, call.member, 'usr')
      const visible = customersInView(world, credential, 'members:manage').has(id)
      const member = world.memberships.filter(
        (membership) => membership.customerId === id && membership.userId === userId,
      )
      const outcome =
        refusal(false, 'members:manage') ??
        (visible && member.length > 0 ? answer(member.map(memberRow), memberFields) : notFound)
      return {
        path: `/customers/${id}/members/${userId}`,
        query: {},
        fields: memberFields,
        outcome,
        page: null,
      }
    }
    case 'readToken': {
      const all = [...world.credentials.values()]
      const id = idOf(all, call.target, 'tok')
      const held = all.find((candidate) => candidate.id === id)
      const readable =
        held !== undefined &&
        held.user.id === user.id &&
        (credential.customerId === null || held.customerId === credential.customerId)
      const outcome = readable
        ? answer([{ id: held.id, customerId: held.customerId }], tokenFields)
        : notFound
      return { path: `/api-tokens/${id}`, query: {}, fields: tokenFields, outcome, page: null }
    }
    case 'listTokens': {
      // A token limited to a customer lists only the user's tokens limited to that same customer.
      const own = [...world.credentials.values()].filter(
        (held) =>
          held.user.id === user.id &&
          (credential.customerId === null || held.customerId === credential.customerId),
      )
      const rows = own.map((held) => ({ id: held.id, customerId: held.customerId }))
      return {
        path: '/api-tokens',
        query: {},
        fields: tokenFields,
        outcome: answer(rows, tokenFields),
        page: call.page,
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Building a world through the API, minting tokens, and checking answers against the model.

/** Ids of the panel's entities, wherever they appear in an answer. */
const entityId = /\b(?:cus|site|usr|brd|tok)_[0-9A-Z]{26}\b/g

const tally = { worlds: 0, requests: 0, rows: 0, refusals: 0, tokens: 0, teamChanges: 0 }

/** Builds the world `plan` describes on a fresh panel, through the API (users through createUser). */
async function buildWorld(plan: WorldPlan): Promise<World> {
  const tp = await createTestPanel()
  try {
    return await populate(tp, plan)
  } catch (error) {
    await tp.panel.close()
    throw error
  }
}

async function populate(tp: TestPanel, plan: WorldPlan): Promise<World> {
  const staff = await tp.staff()
  const builder = await tp.token()
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await tp.request(method, `${api}${path}`, { token: builder, body })
    if (!response.ok)
      throw new Error(`building the world: ${method} ${path} → ${response.status} ${await response.text()}`)
    return (await response.json()) as T
  }
  type Listed = { items: { id: string; isDefault: boolean }[] }
  const brands = [
    ...(await send<Listed>('GET', '/brands')).items.map(({ id, isDefault }) => ({ id, isDefault })),
  ]
  for (let index = 0; index < plan.extraBrands; index++) {
    const brand = await send<{ id: string }>('POST', '/brands', { name: `Brand ${index}` })
    brands.push({ id: brand.id, isDefault: false })
  }
  const brandAt = (slot: number) => nth(brands, slot)?.id ?? ''
  // Passwords are hashed with argon2id: make the users while the rest of the world is built.
  const db = tp.panel.store.db
  const usersMade = Promise.all([
    ...plan.brandStaff.map((slot, index) =>
      createUser(db, {
        email: `brand-staff-${index}@example.test`,
        password,
        staffRole: 'brand',
        brandId: brandAt(slot),
      }),
    ),
    ...plan.members.map((_, index) =>
      createUser(db, { email: `member-${index}@example.test`, password, staffRole: null }),
    ),
  ])
  const customers: { id: string; brandId: string; name: string }[] = []
  const sites: { id: string; customerId: string; domain: string }[] = []
  for (const [index, customerPlan] of plan.customers.entries()) {
    const customer = await send<{ id: string; brandId: string }>('POST', '/customers', {
      name: `Customer ${index}`,
      brandId: brandAt(customerPlan.brand),
    })
    customers.push({ id: customer.id, brandId: customer.brandId, name: `Customer ${index}` })
    for (let number = 0; number < customerPlan.sites; number++) {
      const domain = `site-${number}.customer-${index}.example.test`
      const site = await send<{ id: string }>('POST', '/sites', {
        customerId: customer.id,
        name: `Site ${index}.${number}`,
        type: 'wordpress',
        domain,
      })
      sites.push({ id: site.id, customerId: customer.id, domain })
    }
  }
  const made = await usersMade
  const members = made.slice(plan.brandStaff.length)
  const memberships: Membership[] = []
  for (const [index, teams] of plan.members.entries()) {
    const user = members[index]
    if (!user) continue
    for (const team of teams) {
      const customer = nth(customers, team.customer)
      if (!customer || memberships.some((m) => m.userId === user.id && m.customerId === customer.id)) continue
      await send('POST', `/customers/${customer.id}/members`, { email: user.email, role: team.role })
      memberships.push({ customerId: customer.id, userId: user.id, email: user.email, role: team.role })
    }
  }
  const world: World = {
    tp,
    brands,
    customers,
    sites,
    users: [staff, ...made],
    memberships,
    builder,
    credentials: new Map(),
    cursors: [],
  }
  await checkMe(world, builder, { scopes: ['*'], customerId: null, user: staff })
  return world
}

function describeCaller(credential: Credential): string {
  const limit = credential.customerId ? ` limited to ${credential.customerId}` : ''
  return `${credential.user.email} (${kindOf(credential.user)}, brand ${credential.user.brandId}) with token [${credential.scopes.join(' ')}]${limit}`
}

function describeWorld(world: World): string {
  const customers = world.customers.map((customer) => `${customer.id}@${customer.brandId}`).join(', ')
  const teams = world.memberships
    .map((membership) => `${membership.email} ${membership.role} of ${membership.customerId}`)
    .join(', ')
  return `customers: ${customers}\nteams: ${teams}`
}

/**
 * Reads GET /me with a fresh token, learns its id, and checks the panel agrees with the model: the same effective
 * scopes, and only the memberships inside the token's customer limit (another team's id would be a leak).
 */
async function checkMe(
  world: World,
  secret: string,
  minted: { scopes: readonly string[]; customerId: string | null; user: User },
): Promise<Credential> {
  const response = await world.tp.request('GET', `${api}/me`, { token: secret })
  const text = await response.text()
  tally.requests++
  const me = JSON.parse(text) as {
    token: { id: string }
    kind: string
    scopes: string[]
    memberships: { customerId: string; role: string; customerName: string | null; brandId: string | null }[]
  }
  const key = `${minted.user.id}|${minted.scopes.join(' ')}|${minted.customerId}`
  const credential: Credential = { key, secret, id: me.token.id, ...minted }
  world.credentials.set(key, credential)
  tally.tokens++
  const teams = membershipsOf(world, minted.user)
    .filter((membership) => minted.customerId === null || membership.customerId === minted.customerId)
    .map(({ customerId, role }) => {
      // A member sees their teams by name and brand (a portal shows them without reading customers).
      const customer = world.customers.find((candidate) => candidate.id === customerId)
      return { customerId, role, customerName: customer?.name ?? null, brandId: customer?.brandId ?? null }
    })
    .sort((a, b) => (a.customerId < b.customerId ? -1 : 1))
  const expected = {
    kind: kindOf(minted.user),
    scopes: [...effectiveScopes(world, credential)].sort(),
    memberships: teams,
  }
  const actual = { kind: me.kind, scopes: me.scopes, memberships: me.memberships }
  const own = [
    minted.user.id,
    minted.user.brandId,
    me.token.id,
    minted.customerId,
    ...teams.flatMap((team) => [team.customerId, team.brandId]),
  ]
  const stray = (text.match(entityId) ?? []).filter((id) => !own.includes(id))
  if (stray.length > 0 || JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(
      `GET /me as ${describeCaller(credential)} disagrees with the model:\n  expected ${JSON.stringify(expected)}\n  answered ${text}\n${describeWorld(world)}`,
    )
  return credential
}

async function credentialFor(world: World, plan: RequestPlan): Promise<Credential> {
  const user = nth(world.users, plan.caller)
  if (!user) throw new Error('a world without users')
  let customerId: string | null = null
  if (plan.token.limit === 'ghost') customerId = ghostId('cus')
  else if (plan.token.limit !== null && 'any' in plan.token.limit)
    customerId = nth(world.customers, plan.token.limit.any)?.id ?? null
  else if (plan.token.limit !== null) {
    const own = customersOfUser(world, user)
    customerId = (nth(own, plan.token.limit.own) ?? nth(world.customers, plan.token.limit.own))?.id ?? null
  }
  const known = world.credentials.get(`${user.id}|${plan.token.scopes.join(' ')}|${customerId}`)
  if (known) return known
  const secret = await world.tp.token({ user, scopes: plan.token.scopes, customerId })
  return checkMe(world, secret, { scopes: plan.token.scopes, customerId, user })
}

/** Every row is a row of the expected answer, with the expected fields: nothing from outside the view. */
function project(item: unknown, fields: readonly string[]): string {
  const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>
  return JSON.stringify(Object.fromEntries(fields.map((field) => [field, record[field] ?? null])))
}

async function runProbe(world: World, credential: Credential, probe: Probe, context: string): Promise<void> {
  let trail = context
  const fail = (what: string) => {
    throw new Error(`${what}\n  caller: ${describeCaller(credential)}\n  ${trail}\n${describeWorld(world)}`)
  }
  let outcome = probe.outcome
  let cursor: string | undefined
  const foreignPick = probe.page?.foreignCursor ?? null
  if (foreignPick !== null) {
    const foreign = world.cursors.filter((seen) => seen.owner !== credential.key)
    cursor = nth(foreign, foreignPick)?.cursor
    if (cursor !== undefined && outcome.status === 200) outcome = { status: 400, code: 'invalid_cursor' }
  }
  const expectedRows = outcome.status === 200 ? outcome.rows.map((row) => project(row, probe.fields)) : []
  const expectedIds = new Set(expectedRows.flatMap((row) => row.match(entityId) ?? []))
  const pageSize = probe.page?.limit ?? defaultPageSize
  for (let page = 0; ; page++) {
    const query = new URLSearchParams(probe.query)
    if (probe.page?.limit) query.set('limit', String(probe.page.limit))
    if (cursor !== undefined) query.set('cursor', cursor)
    const url = `${api}${probe.path}${query.size > 0 ? `?${query}` : ''}`
    trail = `${trail}\n  GET ${url}`
    const response = await world.tp.request('GET', url, { token: credential.secret })
    const text = await response.text()
    tally.requests++
    // Whatever the answer, it names no entity the caller may not see (beyond what the request itself named).
    const named = new Set(url.match(entityId) ?? [])
    const stray = (text.match(entityId) ?? []).filter((id) => !named.has(id) && !expectedIds.has(id))
    if (stray.length > 0) fail(`LEAK: the answer (${response.status}) names ${stray.join(', ')}: ${text}`)
    if (outcome.status !== 200) {
      tally.refusals++
      const code =
        response.status === outcome.status ? (JSON.parse(text) as { code?: string }).code : undefined
      if (response.status !== outcome.status || code !== outcome.code)
        fail(`expected ${outcome.status} ${outcome.code}, got ${response.status}: ${text}`)
      return
    }
    if (response.status !== 200)
      fail(`expected 200 with ${expectedRows.length} rows, got ${response.status}: ${text}`)
    const body = JSON.parse(text) as { items?: unknown[]; nextCursor?: string | null }
    const items = probe.page === null ? [body] : (body.items ?? [])
    const got = items.map((item) => project(item, probe.fields))
    tally.rows += got.length
    const outside = got.filter((row) => !expectedRows.includes(row))
    if (outside.length > 0) fail(`LEAK: rows outside the caller's view (or filters): ${outside.join(', ')}`)
    const want =
      probe.page === null ? expectedRows : expectedRows.slice(page * pageSize, (page + 1) * pageSize)
    if (JSON.stringify(got) !== JSON.stringify(want))
      fail(
        `MISSING or misordered rows on page ${page}:\n  expected ${want.join(', ')}\n  got      ${got.join(', ')}`,
      )
    if (probe.page === null) return
    const more = (page + 1) * pageSize < expectedRows.length
    const next = body.nextCursor ?? null
    if ((next !== null) !== more)
      fail(`page ${page}: nextCursor ${next} but ${more ? 'more rows remain' : 'none remain'}`)
    if (next !== null) world.cursors.push({ owner: credential.key, cursor: next })
    if (next === null || !probe.page.walk) return
    cursor = next
  }
}

/**
 * Changes a team through the API and in the model alike; the last owner stays (409 last_owner). Tokens already
 * minted keep working, so later reads check that a lost role is lost at once and a new one counts at once.
 */
async function changeTeam(world: World, change: TeamChangePlan, context: string): Promise<void> {
  const user = nth(
    world.users.filter((candidate) => kindOf(candidate) === 'member'),
    change.member,
  )
  const customer = nth(world.customers, change.customer)
  if (!user || !customer) return
  const index = world.memberships.findIndex((m) => m.userId === user.id && m.customerId === customer.id)
  const current = world.memberships[index]
  if (!current && change.role === null) return
  const team = `${api}/customers/${customer.id}/members`
  const owners = world.memberships.filter((m) => m.customerId === customer.id && m.role === 'owner').length
  const lastOwner = current?.role === 'owner' && change.role !== 'owner' && owners <= 1
  const response = !current
    ? await world.tp.request('POST', team, {
        token: world.builder,
        body: { email: user.email, role: change.role },
      })
    : change.role === null
      ? await world.tp.request('DELETE', `${team}/${user.id}`, { token: world.builder })
      : await world.tp.request('PATCH', `${team}/${user.id}`, {
          token: world.builder,
          body: { role: change.role },
        })
  tally.requests++
  tally.teamChanges++
  const expected = lastOwner ? 409 : !current ? 201 : change.role === null ? 204 : 200
  if (response.status !== expected)
    throw new Error(`${context}: expected ${expected}, got ${response.status}: ${await response.text()}`)
  if (lastOwner) return
  if (current) world.memberships.splice(index, 1)
  if (change.role !== null)
    world.memberships.push({ customerId: customer.id, userId: user.id, email: user.email, role: change.role })
}

async function checkRequest(world: World, plan: RequestPlan, index: number): Promise<void> {
  const context = `request #${index}: ${JSON.stringify(plan.call)}`
  if (plan.call.kind === 'changeTeam') return changeTeam(world, plan.call, context)
  const credential = await credentialFor(world, plan)
  const probe = probeOf(world, credential, plan.call)
  await runProbe(world, credential, probe, context)
}

test(
  'no list or read answers a row outside the caller’s view, and no list misses one inside it',
  async () => {
    const started = performance.now()
    await fc.assert(
      fc.asyncProperty(worldArbitrary, requestsArbitrary, async (plan, requests) => {
        const world = await buildWorld(plan)
        tally.worlds++
        try {
          for (const [index, request] of requests.entries()) await checkRequest(world, request, index)
        } finally {
          await world.tp.panel.close()
        }
      }),
      { numRuns: worldCount, plugins: [fc.interruptAfterTimeLimit(45_000)] },
    )
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    console.log(
      `tenancy property: ${tally.worlds} worlds, ${tally.tokens} tokens, ${tally.teamChanges} team changes, ${tally.requests} requests checked (${tally.refusals} refusals), ${tally.rows} rows checked, ${seconds} s`,
    )
    expect(tally.requests).toBeGreaterThanOrEqual(2000)
  },
  { timeout: 60_000 },
)
