// brandForRecord: brand staff stay in their brand, platform staff name one (checked) or get the unnamed default.

import { describe, expect, test } from 'bun:test'
import type { Caller } from '../auth/caller.ts'
import { Problem } from '../problem/problem.ts'
import { brandForRecord } from './brand-for-record.ts'
import type { BrandDirectory } from './tenant-view.ts'

const brands: BrandDirectory = {
  findBrand: async (id) => (id === 'brd_known' ? { id } : null),
  defaultBrandId: async () => 'brd_default',
}
const callerOf = (kind: Caller['kind'], brandId: string | null) =>
  ({ kind, user: { id: 'usr_x', email: 'x@example.test', brandId } }) as unknown as Caller

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work
  } catch (error) {
    if (error instanceof Problem) return `${error.code} ${error.errors?.[0]?.location}`
    throw error
  }
  throw new Error('not refused')
}

describe('brandForRecord', () => {
  test('brand staff get their own brand, named or not; naming another is unknown_brand at body.brandId', async () => {
    const staff = callerOf('brand', 'brd_own')
    expect(await brandForRecord(staff, undefined, () => brands, 'none')).toBe('brd_own')
    expect(await brandForRecord(staff, 'brd_own', () => brands, 'default')).toBe('brd_own')
    expect(await refusal(brandForRecord(staff, 'brd_known', () => brands, 'default'))).toBe(
      'unknown_brand body.brandId',
    )
  })

  test('platform staff name an existing brand, or get the default brand or none when they name nothing', async () => {
    const staff = callerOf('platform', null)
    expect(await brandForRecord(staff, 'brd_known', () => brands, 'none')).toBe('brd_known')
    expect(await brandForRecord(staff, undefined, () => brands, 'default')).toBe('brd_default')
    expect(await brandForRecord(staff, undefined, () => brands, 'none')).toBeNull()
    expect(await refusal(brandForRecord(staff, 'brd_missing', () => brands, 'none'))).toBe(
      'unknown_brand body.brandId',
    )
  })
})
