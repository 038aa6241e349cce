// The sites serving a certificate, by name (each read from the API; a site the caller cannot read shows its id).
// A certificate is attached from the site's page, which owns that action.

import { Section } from '../../components/page.tsx'
import { EmptyState } from '../../components/states.tsx'
import { SiteName } from '../databases/site-name.tsx'

export function CertificateSites({ siteIds }: { siteIds: readonly string[] }) {
  return (
    <Section title="Sites using it">
      {siteIds.length === 0 ? (
        <EmptyState>No site uses this certificate. Attach it from a site’s page.</EmptyState>
      ) : (
        <ul>
          {siteIds.map((id) => (
            <li key={id}>
              <SiteName id={id} queryKey={['certificates', 'site']} />
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
