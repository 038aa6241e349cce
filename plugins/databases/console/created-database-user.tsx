// What a new or re-keyed login answers once: its password (never shown again), where to connect, and the job that
// sets it on the server (the password works once that job has succeeded).

import { Facts, JobProgress, Link, SecretOnce, Section } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { engineLabels } from './queries.ts'

export function CreatedDatabaseUser({
  user,
  title = 'Connection details',
  showLink = true,
  showJob = true,
}: {
  user: Schemas['DatabaseUserWithPassword']
  title?: string
  showLink?: boolean
  /** Off where the page follows the job itself. */
  showJob?: boolean
}) {
  const client = user.engine === 'mariadb' ? 'mariadb' : 'psql'
  const command =
    user.engine === 'mariadb'
      ? `mariadb -h ${user.host} -P ${user.port} -u ${user.username} -p`
      : `psql -h ${user.host} -p ${user.port} -U ${user.username} <database>`
  return (
    <Section title={title}>
      <SecretOnce label="Password" value={user.password} />
      <Facts
        items={[
          ['User name', <code key="username">{user.username}</code>],
          ['Engine', engineLabels[user.engine] ?? user.engine],
          ['Host', <code key="host">{user.host}</code>],
          ['Port', String(user.port)],
          ['Databases granted', String(user.grants.length)],
        ]}
      />
      <p className="muted">
        Connect with {client}: <code>{command}</code>
      </p>
      {!showJob ? (
        <p className="muted">The new password works once the job above has set it on the server.</p>
      ) : null}
      {showJob && user.jobId ? (
        <>
          <p className="muted">The password works once this job has set it on the server.</p>
          <JobProgress jobId={user.jobId} />
        </>
      ) : null}
      {showLink ? (
        <p>
          <Link to={`/database-users/${encodeURIComponent(user.id)}`}>
            Open database user {user.username}
          </Link>
        </p>
      ) : null}
    </Section>
  )
}
