// `/sites/:id/sftp`: the site's SFTP accounts, where to connect, new accounts, new passwords and removal.

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { type Column, CursorTable } from '../../components/cursor-table.tsx'
import { formatTime } from '../../components/format.ts'
import { Section } from '../../components/page.tsx'
import { SecretOnce } from '../../components/secret-once.tsx'
import { useSession } from '../../session.tsx'
import { SftpConnection } from './sftp-connection.tsx'
import { SftpCreateForm } from './sftp-create-form.tsx'
import { ActionError, useSiteAction } from './site-action.tsx'
import { SiteFrame } from './site-frame.tsx'

type Site = Schemas['Site']
type SftpUser = Schemas['SftpUser']

function signInOf(account: SftpUser): string {
  const keys = account.publicKeys.length
  const parts = [
    account.passwordEnabled ? 'password' : null,
    keys > 0 ? `${keys} key${keys > 1 ? 's' : ''}` : null,
  ]
  return parts.filter(Boolean).join(' and ') || 'none'
}

function Accounts({ site }: { site: Site }) {
  const queries = useQueryClient()
  const listKey = ['sites', site.id, 'sftp-users']
  const [rotated, setRotated] = useState<Schemas['SftpUserWithNewPassword'] | null>(null)
  // The connection details are the node's, the same on every account: the first one says them.
  const first = useQuery({
    queryKey: [...listKey, 'first'],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/sites/{id}/sftp-users', { params: { path: { id: site.id }, query: { limit: 1 } } }),
      ),
  })
  const rotate = useSiteAction(
    (account: SftpUser) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/sftp-users/{sftpUserId}/password', {
          params: { path: { id: site.id, sftpUserId: account.id } },
        }),
      ),
    (answer) => {
      setRotated(answer)
      void queries.invalidateQueries({ queryKey: listKey })
    },
  )
  const remove = useSiteAction(
    (account: SftpUser) =>
      unwrap(
        api.DELETE('/api/v1/sites/{id}/sftp-users/{sftpUserId}', {
          params: { path: { id: site.id, sftpUserId: account.id } },
        }),
      ),
    () => {
      setRotated(null)
      void queries.invalidateQueries({ queryKey: listKey })
    },
  )
  const columns: Column<SftpUser>[] = [
    { header: 'Username', cell: (account) => <code>{account.username}</code> },
    { header: 'Signs in with', cell: signInOf },
    { header: 'Access', cell: (account) => (account.readOnly ? 'read-only' : 'read and write') },
    { header: 'Expires', cell: (account) => (account.expiresAt ? formatTime(account.expiresAt) : 'never') },
    { header: 'Created', cell: (account) => formatTime(account.createdAt) },
    {
      header: 'Actions',
      cell: (account) => (
        <div className="actions">
          {/* A new password ends the old one and the account's live sessions at once: asked twice. */}
          <ConfirmButton
            confirmLabel={`Confirm new password for ${account.username}`}
            disabled={rotate.isPending}
            onConfirm={() => rotate.mutate(account)}
          >
            New password for {account.username}
          </ConfirmButton>
          <ConfirmButton
            confirmLabel={`Confirm delete ${account.username}`}
            disabled={remove.isPending}
            onConfirm={() => remove.mutate(account)}
          >
            Delete {account.username}
          </ConfirmButton>
        </div>
      ),
    },
  ]
  const sample = first.data?.items[0]
  return (
    <>
      {sample ? (
        <Section title="Connecting">
          <SftpConnection account={sample} />
        </Section>
      ) : null}
      <Section title="Accounts">
        {rotated ? (
          <SecretOnce label={`New SFTP password for ${rotated.username}`} value={rotated.password} />
        ) : null}
        <ActionError action={rotate} />
        <ActionError action={remove} />
        <CursorTable<SftpUser>
          queryKey={listKey}
          load={(cursor) =>
            unwrap(
              api.GET('/api/v1/sites/{id}/sftp-users', {
                params: { path: { id: site.id }, query: { cursor, limit: 50 } },
              }),
            )
          }
          columns={columns}
          caption="SFTP accounts"
          rowKey={(account) => account.id}
          empty="No SFTP accounts yet. Create one below to upload files with an SFTP client."
        />
      </Section>
    </>
  )
}

export function SiteSftpPage({ id }: { id: string }) {
  const session = useSession()
  return (
    <SiteFrame id={id} current="sftp">
      {(site) => (
        <>
          <Accounts site={site} />
          {session.can('site:files') ? (
            <Section title="New SFTP account">
              <SftpCreateForm site={site} />
            </Section>
          ) : null}
        </>
      )}
    </SiteFrame>
  )
}
