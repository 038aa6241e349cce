// `/sites/:id/sftp`: the site's SFTP accounts, where to connect, new accounts, new passwords and removal.

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ActionError,
  type Column,
  ConfirmButton,
  CursorTable,
  formatTime,
  SecretOnce,
  Section,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { SiteFrame, type SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { SftpConnection } from './sftp-connection.tsx'
import { SftpCreateForm } from './sftp-create-form.tsx'

type Site = SiteSchemas['Site']
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
  const [rotated, setRotated] = useState<Schemas['SftpUserWithNewPassword'] | null>(null)
  // The connection details are the node's, the same on every account: the first one says them.
  const first = useQuery(
    api.query('/api/v1/sites/{id}/sftp-users', { params: { path: { id: site.id }, query: { limit: 1 } } }),
  )
  const rotate = useAction(
    (account: SftpUser) =>
      unwrap(
        api.POST('/api/v1/sites/{id}/sftp-users/{sftpUserId}/password', {
          params: { path: { id: site.id, sftpUserId: account.id } },
        }),
      ),
    (answer) => {
      setRotated(answer)
    },
  )
  const remove = useAction(
    (account: SftpUser) =>
      unwrap(
        api.DELETE('/api/v1/sites/{id}/sftp-users/{sftpUserId}', {
          params: { path: { id: site.id, sftpUserId: account.id } },
        }),
      ),
    () => {
      setRotated(null)
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
          list={api.list('/api/v1/sites/{id}/sftp-users', {
            params: { path: { id: site.id }, query: { limit: 50 } },
          })}
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
    <SiteFrame id={id} title="SFTP accounts">
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
