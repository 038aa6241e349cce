// The brands platform staff may give an endpoint to (`brandId`), as select options; empty for everyone else, whose
// endpoints are always their brand's.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { useSession } from '../../session.tsx'

export function useBrandOptions(): { value: string; label: string }[] {
  const session = useSession()
  const brands = useQuery({
    queryKey: ['webhooks', 'brands'],
    queryFn: () => unwrap(api.GET('/api/v1/brands', { params: { query: { limit: 100 } } })),
    enabled: session.me.kind === 'platform' && session.can('brand:read'),
  })
  return (brands.data?.items ?? []).map((brand) => ({ value: brand.id, label: brand.name }))
}
