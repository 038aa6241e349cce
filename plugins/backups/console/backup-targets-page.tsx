// `/backup-targets` (staff): where sites' repositories live, which one sites without their own back up to, and
// whether nodes there can delete snapshots. The default is changed here; a target still in use is not deleted, and
// the API's reason (409) is said above the list.

import {
  ConfirmAction,
  CursorTable,
  formatTime,
  Link,
  PageHeader,
  unwrap,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Target = Schemas['BackupTarget']

const kindText = { local: 'On the site’s node', sftp: 'SFTP', rest: 'REST server', s3: 'S3' } as const

/** Where a target is, without secrets, in one line. */
export function whereText(target: Target): string {
  const at = target.location
  switch (target.kind) {
    case 'sftp':
      return `${at.username ?? ''}@${at.host ?? ''}${at.port ? `:${at.port}` : ''}:${at.path ?? ''}`
    case 'rest':
      return String(at.url ?? '')
    case 's3':
      return `${at.endpoint ?? ''} ${at.bucket ?? ''}${at.prefix ? `/${at.prefix}` : ''}`
    default:
      return 'each site’s node'
  }
}

export function BackupTargetsPage() {
  const { can } = useSession()
  const manage = can('backup-target:manage')
  return (
    <>
      <PageHeader
        title="Backup targets"
        subtitle="Where sites’ backup repositories live. Sites without a target of their own back up to the default."
        actions={
          manage ? (
            <Link className="button" to="/backup-targets/new">
              Add backup target
            </Link>
          ) : null
        }
      />
      <CursorTable<Target>
        list={api.list('/api/v1/backup-targets')}
        caption="Backup targets"
        empty={
          manage
            ? 'No backup target yet. Add one, and make it the default, so sites can be backed up.'
            : 'No backup target yet.'
        }
        columns={[
          { header: 'Name', cell: (target) => target.name },
          { header: 'Kind', cell: (target) => kindText[target.kind] ?? target.kind },
          { header: 'Where', cell: (target) => <code>{whereText(target)}</code> },
          {
            header: 'Default',
            cell: (target) =>
              target.default ? (
                <strong>Default</strong>
              ) : manage ? (
                <ConfirmAction
                  confirmLabel={`Confirm ${target.name} as the default`}
                  run={() =>
                    unwrap(
                      api.PATCH('/api/v1/backup-targets/{id}', {
                        params: { path: { id: target.id } },
                        body: { default: true },
                      }),
                    )
                  }
                >
                  Make {target.name} the default
                </ConfirmAction>
              ) : (
                'No'
              ),
          },
          {
            header: 'Nodes may delete',
            cell: (target) => (target.pushOnly ? 'No (push-only)' : 'Yes'),
          },
          { header: 'Added', cell: (target) => formatTime(target.createdAt) },
        ]}
        remove={{
          scope: 'backup-target:manage',
          label: (target) => target.name,
          run: (target) => api.DELETE('/api/v1/backup-targets/{id}', { params: { path: { id: target.id } } }),
        }}
      />
    </>
  )
}
