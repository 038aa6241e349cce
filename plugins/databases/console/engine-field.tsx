// The "Engine" select of the databases area's create forms (a database, a server, a login on any server of an
// engine): the engines the panel drives, MariaDB first.

import { type ApiForm, SelectField } from '../../console/kit.ts'
import { engineLabels } from './queries.ts'

const engineOptions = Object.entries(engineLabels).map(([value, label]) => ({ value, label }))

/** The `engine` select, MariaDB chosen to start with. */
export function EngineField<R>({ form }: { form: ApiForm<R> }) {
  return (
    <SelectField form={form} name="engine" label="Engine" defaultValue="mariadb" options={engineOptions} />
  )
}
