// A login's grants and allowed hosts: shown to readers, changed by managers (PATCH replaces the list sent; the
// user's job applies it on the server).

import { useState } from 'react'
import {
  EmptyState,
  ErrorNotice,
  FormProblem,
  Link,
  ListField,
  Loading,
  listOf,
  Section,
  SubmitButton,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { type Grant, GrantPicker } from './grant-picker.tsx'
import { useCustomerDatabases } from './queries.ts'

type DatabaseUser = Schemas['DatabaseUser']

const accessLabels = { readwrite: 'Read and write', readonly: 'Read only' } as const

export function DatabaseUserAccess({
  user,
  manage,
  onChanged,
}: {
  user: DatabaseUser
  manage: boolean
  onChanged: (user: DatabaseUser) => void
}) {
  const databases = useCustomerDatabases(user.customerId)
  const [grants, setGrants] = useState<Grant[]>(() => [...user.grants])
  const [sent, setSent] = useState<Grant[]>([])
  const grantsForm = useApiForm(
    () => {
      setSent(grants)
      return unwrap(
        api.PATCH('/api/v1/database-users/{id}', { params: { path: { id: user.id } }, body: { grants } }),
      )
    },
    { onSuccess: onChanged },
  )
  const hostsForm = useApiForm(
    (data) =>
      unwrap(
        api.PATCH('/api/v1/database-users/{id}', {
          params: { path: { id: user.id } },
          body: { allowedHosts: listOf(data, 'allowedHosts') ?? [] },
        }),
      ),
    { onSuccess: onChanged },
  )
  const onServer = (databases.data ?? []).filter(
    (database) =>
      database.serverId === user.serverId &&
      (database.status !== 'deleting' || user.grants.some((grant) => grant.databaseId === database.id)),
  )
  const nameOf = (databaseId: string) =>
    databases.data?.find((database) => database.id === databaseId)?.name ?? databaseId
  return (
    <>
      <Section title="Grants">
        {databases.isPending ? (
          <Loading />
        ) : databases.isError ? (
          <ErrorNotice error={databases.error} />
        ) : manage ? (
          <form onSubmit={grantsForm.submit} noValidate>
            <GrantPicker
              form={grantsForm}
              legend="Databases it may use"
              databases={onServer}
              grants={grants}
              onChange={setGrants}
              sent={sent}
            />
            {grantsForm.result && !grantsForm.pending ? (
              <p className="muted" role="status">
                Grants saved; the server follows in the job above.
              </p>
            ) : null}
            <FormProblem form={grantsForm} />
            <div>
              <SubmitButton form={grantsForm}>Save grants</SubmitButton>
            </div>
          </form>
        ) : user.grants.length === 0 ? (
          <EmptyState>This login may use no database.</EmptyState>
        ) : (
          <ul>
            {user.grants.map((grant) => (
              <li key={grant.databaseId}>
                <Link to={`/databases/${encodeURIComponent(grant.databaseId)}`}>
                  {nameOf(grant.databaseId)}
                </Link>
                : {accessLabels[grant.access]}
              </li>
            ))}
          </ul>
        )}
      </Section>
      {manage ? (
        <Section title="Where it may connect from">
          <form onSubmit={hostsForm.submit} noValidate>
            <ListField
              form={hostsForm}
              name="allowedHosts"
              label="Allowed hosts"
              defaultValue={user.allowedHosts}
              hint={
                user.engine === 'postgresql'
                  ? 'Recorded, but on PostgreSQL the server’s pg_hba.conf decides which hosts may connect.'
                  : 'Addresses or host names, separated by commas; no wildcards.'
              }
            />
            <FormProblem form={hostsForm} />
            <div>
              <SubmitButton form={hostsForm}>Save allowed hosts</SubmitButton>
            </div>
          </form>
        </Section>
      ) : null}
    </>
  )
}
