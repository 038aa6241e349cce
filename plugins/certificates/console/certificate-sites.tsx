// The sites serving a certificate, by name (each read from the API; a site the caller cannot read shows its id).
// A certificate is attached from the site's page, which owns that action.

import { EmptyState, Section } from '../../console/kit.ts'
import { SiteName } from '../../sites/console/contract.ts'

export function CertificateSites({ siteIds }: { siteIds: readonly string[] }) {
  return (
    <Section title="Sites using it">
      {siteIds.length === 0 ? (
        <EmptyState>No site uses this certificate. Attach it from a site’s page.</EmptyState>
      ) : (
        <ul>
          {siteIds.map((id) => (
            <li key={id}>
              <SiteName id={id} />
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
