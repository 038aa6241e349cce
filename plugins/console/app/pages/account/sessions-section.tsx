// Where the user is signed in (`GET /sessions`), newest first, each with a way to sign it out
// (`DELETE /sessions/{id}`). The API orders sessions by their random id, so they are all read and sorted here:
// a user has few.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmAction } from '../../components/confirm-action.tsx'
import { formatTime } from '../../components/format.ts'
import { EmptyState, ErrorNotice, Loading } from '../../components/states.tsx'
import { describeUserAgent } from './user-agent.ts'

type Session = Schemas['Session']

const newestFirst = (sessions: Session[]) =>
  [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt))

/**
 * Signs a session out. Signing out this browser's own ends it here too: the list, read again after the change,
 * answers 401, and the sign-in page shows.
 */
function SignOutSession({ session }: { session: Session }) {
  const where = describeUserAgent(session.userAgent)
  return (
    <ConfirmAction
      run={() => unwrap(api.DELETE('/api/v1/sessions/{id}', { params: { path: { id: session.id } } }))}
      confirmLabel={session.current ? 'Confirm: sign out here' : `Confirm: sign out ${where}`}
    >
      Sign out
      <span className="visually-hidden">
        {session.current ? ' this browser' : ` ${where}, signed in ${formatTime(session.createdAt)}`}
      </span>
    </ConfirmAction>
  )
}

export function SessionsTable() {
  const sessions = useQuery({ ...api.all('/api/v1/sessions'), select: newestFirst })
  if (sessions.isPending) return <Loading />
  if (sessions.isError) return <ErrorNotice error={sessions.error} />
  if (sessions.data.length === 0) return <EmptyState>No browser is signed in as you.</EmptyState>
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Where you are signed in</caption>
        <thead>
          <tr>
            <th scope="col">Browser</th>
            <th scope="col">Address</th>
            <th scope="col">Signed in</th>
            <th scope="col">Ends unless used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {sessions.data.map((session) => (
            <tr key={session.id}>
              <td>
                {describeUserAgent(session.userAgent)}
                {session.current ? <span className="badge account-current">this browser</span> : null}
              </td>
              <td>{session.address ?? '—'}</td>
              <td>{formatTime(session.createdAt)}</td>
              <td>{formatTime(session.expiresAt)}</td>
              <td>
                <SignOutSession session={session} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
