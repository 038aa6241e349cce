// The brands the caller may read, for the pages that name a brand or let staff choose one (customers, users, plans,
// webhook endpoints). One read (`GET /brands`, every page), so a brand's change reaches them all; without
// `brand:read` there is none, and a brand shows as its id.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas } from '../api/client.ts'
import { useSession } from '../session.tsx'

/** The brands the caller sees, or none without `brand:read`. */
export function useBrands(): { brands: readonly Schemas['Brand'][]; loading: boolean; error: unknown } {
  const session = useSession()
  const enabled = session.can('brand:read')
  const brands = useQuery({ ...api.all('/api/v1/brands'), enabled, staleTime: 60_000 })
  return {
    brands: brands.data ?? [],
    loading: enabled && brands.isPending,
    error: brands.error,
  }
}

/** A function naming a brand id (its name when known, else the id; `—` for none). */
export function useBrandName(): (brandId: string | null | undefined) => string {
  const { brands } = useBrands()
  return (brandId) => {
    if (!brandId) return '—'
    return brands.find((brand) => brand.id === brandId)?.name ?? brandId
  }
}

/**
 * The brands platform staff may put something in (a plan, a webhook endpoint), as select options; empty for
 * everyone else, whose things are always their own brand's. `markDefault` adds "(default)" to the default brand.
 */
export function useBrandOptions({ markDefault = false }: { markDefault?: boolean } = {}): {
  value: string
  label: string
}[] {
  const session = useSession()
  const { brands } = useBrands()
  if (session.me.kind !== 'platform') return []
  return brands.map((brand) => ({
    value: brand.id,
    label: markDefault && brand.isDefault ? `${brand.name} (default)` : brand.name,
  }))
}
