// The servers a database user can be made on, for a customer. Members cannot list servers, so the choices are the
// servers of the customer's databases (each database carries `serverId`, host and port); staff who may read servers
// also get the other active ones, by name.

import type { Schemas } from './api.ts'
import { engineLabels } from './queries.ts'

export interface ServerChoice {
  readonly value: string
  readonly label: string
  readonly engine: 'mariadb' | 'postgresql'
}

export function serverChoices(
  databases: readonly Schemas['Database'][],
  servers: ReadonlyMap<string, Schemas['DatabaseServer']>,
): ServerChoice[] {
  const choices = new Map<string, ServerChoice>()
  const label = (name: string | undefined, engine: string, host: string, port: number) =>
    `${name ? `${name}: ` : ''}${engineLabels[engine] ?? engine} at ${host}:${port}`
  for (const database of databases) {
    if (choices.has(database.serverId)) continue
    const server = servers.get(database.serverId)
    choices.set(database.serverId, {
      value: database.serverId,
      label: label(server?.name, database.engine, database.host, database.port),
      engine: database.engine,
    })
  }
  for (const server of servers.values()) {
    if (choices.has(server.id) || server.status !== 'active') continue
    choices.set(server.id, {
      value: server.id,
      label: `${label(server.name, server.engine, server.host, server.port)} (no database of this customer)`,
      engine: server.engine,
    })
  }
  return [...choices.values()]
}
