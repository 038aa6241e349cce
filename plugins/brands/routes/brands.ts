// Brand operations: platform staff create brands; brand staff see and rename only their own.

import {
  type Caller,
  defineRoute,
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
import { brandsProblems } from '../problems.ts'
import { brandsQuery, findBrand, insertBrand, nameTaken, renameBrand, toBrand } from '../repository.ts'

const BrandBody = t.Object(
  { name: nonBlankText({ maxLength: 100, description: 'Display name, unique.' }) },
  { $id: 'BrandBody' },
)

/** The brand a caller may see: all for platform staff, its own for brand staff. */
function ownBrandOnly(caller: Caller): string | null {
  return caller.kind === 'platform' ? null : (caller.user.brandId ?? '')
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
      description: 'Platform staff only: a brand is a white-label reseller with its own staff and customers.',
      scope: brandScopes.create,
      staff: true,
      body: BrandBody,
      responses: {
        201: { description: 'The new brand.', schema: Brand, headers: { Location: 'URL of the brand.' } },
      },
      problems: [brandsProblems.brand_name_taken],
      async handler({ body, audit }) {
        const name = body.name.trim()
        const now = nowIso()
        const row = { id: newId('brd'), name, is_default: 0, created_at: now, updated_at: now }
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
      summary: 'Rename a brand',
      scope: brandScopes.manage,
      staff: true,
      params: { id: 'brd' },
      body: BrandBody,
      responses: { 200: { description: 'The brand.', schema: Brand } },
      problems: [brandsProblems.brand_name_taken],
      async handler({ caller, params, body, audit }) {
        const brand = await visibleBrand(caller, params.id)
        const name = body.name.trim()
        const now = nowIso()
        await transaction(async (trx) => {
          if (await nameTaken(trx, name, brand.id)) throw new Problem(brandsProblems.brand_name_taken)
          await renameBrand(trx, brand.id, name, now)
          await audit(trx, {
            action: 'brand.update',
            subject: { type: 'brand', id: brand.id },
            customerId: null,
            brandId: brand.id,
            details: { name },
          })
        })
        return { ...brand, name, updatedAt: now }
      },
    }),
  ]
}
