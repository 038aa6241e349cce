// `/database-users/new`: a login for a customer on one server, with grants on the customer's databases there. The
// answer carries the real user name and the password, shown this once; the user's job makes the login on the
// server, and the password works once it has succeeded.

import { useState } from 'react'
import {
  CustomerField,
  ErrorNotice,
  FormFooter,
  Link,
  ListField,
  listOf,
  PageHeader,
  Section,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useChosenCustomer,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { CreatedDatabaseUser } from './created-database-user.tsx'
import { EngineField } from './engine-field.tsx'
import { type Grant, GrantPicker } from './grant-picker.tsx'
import { useCustomerDatabases, useDatabaseServers } from './queries.ts'
import { serverChoices } from './server-choices.ts'

type Engine = 'mariadb' | 'postgresql'

export function DatabaseUserNewPage() {
  const chosen = useChosenCustomer()
  const databases = useCustomerDatabases(chosen.customerId)
  const servers = useDatabaseServers()
  const choices = serverChoices(databases.data ?? [], servers)
  const [pickedServer, pickServer] = useState<string | null>(null)
  const serverId = pickedServer ?? choices[0]?.value ?? ''
  const [grants, setGrants] = useState<Grant[]>([])
  const [sent, setSent] = useState<Grant[]>([])
  const onServer = (databases.data ?? []).filter(
    (database) => database.serverId === serverId && database.status !== 'deleting',
  )
  const form = useApiForm((data) => {
    const kept = grants.filter((grant) => onServer.some((database) => database.id === grant.databaseId))
    setSent(kept)
    const body: Schemas['CreateDatabaseUserBody'] = {
      customerId: textOf(data, 'customerId') ?? '',
      name: textOf(data, 'name') ?? '',
      grants: kept,
    }
    if (serverId) body.serverId = serverId
    else body.engine = (textOf(data, 'engine') ?? 'mariadb') as Engine
    const password = textOf(data, 'password')
    if (password) body.password = password
    const hosts = listOf(data, 'allowedHosts')
    if (hosts) body.allowedHosts = hosts
    return unwrap(api.POST('/api/v1/database-users', { body }))
  })
  const chooseCustomer = (customerId: string) => {
    chosen.choose(customerId)
    pickServer(null)
    setGrants([])
  }
  if (form.result)
    return (
      <>
        <PageHeader
          title="Database user created"
          subtitle={<Link to="/database-users">Back to database users</Link>}
        />
        <CreatedDatabaseUser user={form.result} />
        <p>
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              form.reset()
              setGrants([])
            }}
          >
            Create another database user
          </button>
        </p>
      </>
    )
  return (
    <>
      <PageHeader
        title="Create database user"
        subtitle={<Link to="/database-users">Back to database users</Link>}
      />
      <Section title="New database user">
        <form onSubmit={form.submit} noValidate>
          <CustomerField form={form} chosen={{ ...chosen, choose: chooseCustomer }} />
          <TextField
            form={form}
            name="name"
            label="Name"
            autoComplete="off"
            spellCheck={false}
            hint="Lower-case letters, digits and single underscores, starting with a letter. The login is the customer’s prefix and this name."
          />
          {databases.isError ? <ErrorNotice error={databases.error} /> : null}
          <SelectField
            form={form}
            name="serverId"
            label="Server"
            value={serverId}
            onChange={(event) => {
              pickServer(event.target.value)
              setGrants([])
            }}
            disabled={chosen.customerId === ''}
            hint={
              choices.length === 0 && chosen.customerId !== ''
                ? 'This customer has no database yet: the login goes on the server of the engine below with the fewest databases.'
                : 'The login lives on one server and may use the customer’s databases there.'
            }
            options={[
              ...choices.map(({ value, label }) => ({ value, label })),
              { value: '', label: 'Any server of the engine below' },
            ]}
          />
          {serverId === '' ? <EngineField form={form} /> : null}
          {serverId !== '' ? (
            <GrantPicker form={form} databases={onServer} grants={grants} onChange={setGrants} sent={sent} />
          ) : null}
          <ListField
            form={form}
            name="allowedHosts"
            label="Allowed hosts (optional)"
            hint="Addresses or host names the login is accepted from, separated by commas. Empty: 127.0.0.1, localhost and the nodes where sites run."
          />
          <TextField
            form={form}
            name="password"
            label="Own password (optional)"
            type="password"
            autoComplete="new-password"
            hint="Empty: the panel makes a strong one and shows it once. Yours needs 16 to 128 characters, with three of lower case, upper case, digits and others."
          />
          <FormFooter form={form}>Create database user</FormFooter>
        </form>
      </Section>
    </>
  )
}
