// `/sites/:id/backups`, a tab of the site: the last good backup's age first, "Back up now" for those who may, every
// backup of the site, and the policy that takes the scheduled ones.

import { Section, useSession } from '../../console/kit.ts'
import { SiteFrame, siteIsOnNode } from '../../sites/console/contract.ts'
import { BackUpNow } from './back-up-now.tsx'
import { BackupList } from './backup-list.tsx'
import { BackupPolicySection } from './backup-policy.tsx'
import { LastGoodBackup } from './last-good-backup.tsx'

export function SiteBackupsPage({ siteId }: { siteId: string }) {
  const { can } = useSession()
  return (
    <SiteFrame id={siteId} title="Backups">
      {(site) => (
        <>
          <LastGoodBackup siteId={site.id} />
          <Section
            title="Backups"
            actions={
              can('backup:manage') ? <BackUpNow siteId={site.id} disabled={!siteIsOnNode(site)} /> : null
            }
          >
            <BackupList siteId={site.id} />
          </Section>
          <BackupPolicySection siteId={site.id} />
        </>
      )}
    </SiteFrame>
  )
}
