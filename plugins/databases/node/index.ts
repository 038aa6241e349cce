// The databases plugin's node module: the node's own MariaDB, for its sites (the panel registers it as the node's
// database server). The panel's local node is given the plugin's options (`port`, or none to run no server); an
// agent reads NODE_DATABASE_PORT (default 3307, `off` for none) from its environment.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { type DatabaseServiceOptions, databaseNodeService } from './database-service.ts'
import { findMariadb } from './node-mariadb.ts'

/** Options the panel's plugin gives its local node: a port, or null for no database server on that node. */
export interface DatabaseModuleOptions {
  readonly port: number | null
  /** How often the server is looked at (started again if it died). Default 10 s. */
  readonly watchEveryMs?: number
}

/** NODE_DATABASE_PORT as an agent has it; throws naming a bad one. */
function fromEnvironment(env: Readonly<Record<string, string | undefined>>): DatabaseModuleOptions {
  const text = env.NODE_DATABASE_PORT
  if (text === 'off') return { port: null }
  const port = text === undefined || text === '' ? 3307 : Number(text)
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error('NODE_DATABASE_PORT must be a port, 1 to 65535, or off')
  return { port }
}

export default defineNodeModule<DatabaseModuleOptions>({
  name: 'databases',
  source: import.meta.url,
  packages: ['mariadb-server', 'mariadb-client'],
  create(host, options) {
    const { port, watchEveryMs } = options ?? fromEnvironment(host.env)
    const programs = findMariadb()
    if (port === null) return {}
    if (!programs) return { lacks: [{ what: 'mariadb-server', for: 'a database server of the node’s own' }] }
    const settings: DatabaseServiceOptions = { port, ...(watchEveryMs === undefined ? {} : { watchEveryMs }) }
    return { services: [databaseNodeService(programs, settings)] }
  },
})
