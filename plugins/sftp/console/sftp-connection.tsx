// Where an SFTP client connects, and the host keys to compare on first connecting: the same for every account of
// a site (they are its node's), so shown once.

import { Facts } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

export function SftpConnection({ account }: { account: Schemas['SftpUser'] }) {
  return (
    <Facts
      items={[
        ['Host', <code key="host">{account.host}</code>],
        ['Port', String(account.port)],
        [
          'Host key fingerprints',
          account.hostKeyFingerprints.length > 0 ? (
            <ul key="keys" className="sites-plain-list">
              {account.hostKeyFingerprints.map((fingerprint) => (
                <li key={fingerprint}>
                  <code>{fingerprint}</code>
                </li>
              ))}
            </ul>
          ) : (
            '—'
          ),
        ],
      ]}
    />
  )
}
