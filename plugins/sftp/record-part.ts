// The site's SFTP accounts in every backup's record of the site (`backups.siteRecordParts`): who could reach its
// files and how, with their public keys (not secret), so they can be made again; never a password or its hash.

import type { SiteRecordPart } from '../backups/contract.ts'
import { keysOf, siteAccounts, toSftpUser } from './repository.ts'

export const sftpRecordPart: SiteRecordPart = {
  name: 'sftpAccounts',
  async read(db, siteId) {
    const rows = await siteAccounts(db, siteId).orderBy('id').execute()
    return rows.map((row) => {
      const { host, port, hostKeyFingerprints, createdAt, updatedAt, ...account } = toSftpUser(row)
      return {
        ...account,
        publicKeys: keysOf(row).map(({ type, fingerprint, comment, openssh }) => ({
          type,
          fingerprint,
          comment,
          openssh,
        })),
      }
    })
  },
}
