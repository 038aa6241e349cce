// `/databases/new`: a database for a customer, on a server of the chosen engine; optionally tied to one of the
// customer's sites (deleting the site deletes it). The answer is `provisioning` with its job, which the database's
// page follows live.

import {
  CustomerField,
  FormFooter,
  Link,
  navigate,
  PageHeader,
  Section,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
  useChosenCustomer,
} from '../../console/kit.ts'
import { useCustomerSites } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { EngineField } from './engine-field.tsx'

type Engine = Schemas['CreateDatabaseBody']['engine']

export function DatabaseNewPage() {
  const chosen = useChosenCustomer()
  const sites = useCustomerSites(chosen.customerId)
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/databases', {
          body: {
            customerId: textOf(data, 'customerId') ?? '',
            engine: (textOf(data, 'engine') ?? '') as Engine,
            name: textOf(data, 'name') ?? '',
            ...(textOf(data, 'siteId') ? { siteId: textOf(data, 'siteId') } : {}),
          },
        }),
      ),
    {
      onSuccess: (database) => {
        navigate(`/databases/${encodeURIComponent(database.id)}`)
      },
    },
  )
  const siteOptions = (sites.data ?? []).map((site) => ({
    value: site.id,
    label: `${site.name} (${site.domain})`,
  }))
  return (
    <>
      <PageHeader title="Create database" subtitle={<Link to="/databases">Back to databases</Link>} />
      <Section title="New database">
        <form onSubmit={form.submit} noValidate>
          <CustomerField form={form} chosen={chosen} />
          <EngineField form={form} />
          <TextField
            form={form}
            name="name"
            label="Name"
            autoComplete="off"
            spellCheck={false}
            hint="Lower-case letters, digits and single underscores, starting with a letter, at most 32. The server sees it behind the customer’s prefix (c1a2b3c4d_name)."
          />
          <SelectField
            form={form}
            name="siteId"
            label="Site (optional)"
            hint="Deleting the site deletes the database with it."
            disabled={chosen.customerId === ''}
            options={[
              {
                value: '',
                label:
                  chosen.customerId === ''
                    ? 'Choose a customer first'
                    : sites.isLoading
                      ? 'Loading sites…'
                      : 'No site',
              },
              ...siteOptions,
            ]}
          />
          <FormFooter form={form}>Create database</FormFooter>
        </form>
      </Section>
    </>
  )
}
