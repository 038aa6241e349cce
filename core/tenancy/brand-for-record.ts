// Which brand a record staff create belongs to (a customer, a plan, a webhook endpoint): one rule for every plugin.

import type { Caller } from '../auth/caller.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { fieldProblem } from '../problem/problem.ts'
import type { BrandDirectory } from './tenant-view.ts'

/**
 * The brand of a record `caller` creates, from the body's `brandId` (`requested`): brand staff's own brand (naming
 * another is 422 `unknown_brand` at `body.brandId`, as for a brand that does not exist); for platform staff the brand
 * they name, checked, or when they name none, the default brand (`unnamed: 'default'`) or no brand (`'none'`, a
 * record of the whole installation).
 * @example const brandId = await brandForRecord(caller, body.brandId, brands, 'default')
 */
export async function brandForRecord(
  caller: Caller,
  requested: string | undefined,
  brands: () => BrandDirectory,
  unnamed: 'default',
): Promise<string>
export async function brandForRecord(
  caller: Caller,
  requested: string | undefined,
  brands: () => BrandDirectory,
  unnamed: 'none',
): Promise<string | null>
export async function brandForRecord(
  caller: Caller,
  requested: string | undefined,
  brands: () => BrandDirectory,
  unnamed: 'default' | 'none',
): Promise<string | null> {
  if (caller.kind === 'brand') {
    if (requested !== undefined && requested !== caller.user.brandId)
      throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
    return caller.user.brandId ?? ''
  }
  if (requested === undefined) return unnamed === 'default' ? brands().defaultBrandId() : null
  if (!(await brands().findBrand(requested))) throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
  return requested
}
