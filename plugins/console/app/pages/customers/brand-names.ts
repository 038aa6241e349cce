// Brands by name for the staff pages that show a customer's or user's brand: staff who may read brands get the
// list (`GET /brands`); anyone else sees the id, which is all the API lets them know.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { useSession } from '../../session.tsx'

/** The brands the caller sees (at most the first 100: installations have few), or none without `brand:read`. */
export function useBrands(): { brands: readonly Schemas['Brand'][]; loading: boolean; error: unknown } {
  const session = useSession()
  const enabled = session.can('brand:read')
  const brands = useQuery({
    queryKey: ['brands', 'options'],
    queryFn: () => unwrap(api.GET('/api/v1/brands', { params: { query: { limit: 100 } } })),
    enabled,
    staleTime: 60_000,
  })
  return {
    brands: brands.data?.items ?? [],
    loading: enabled && brands.isPending,
    error: brands.error,
  }
}

/** A function naming a brand id (its name when known, else the id). */
export function useBrandName(): (brandId: string | null | undefined) => string {
  const { brands } = useBrands()
  return (brandId) => {
    if (!brandId) return '—'
    return brands.find((brand) => brand.id === brandId)?.name ?? brandId
  }
}
