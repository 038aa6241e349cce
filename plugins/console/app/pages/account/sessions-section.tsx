// Where the user is signed in (`GET /sessions`), newest first, each with a way to sign it out
// (`DELETE /sessions/{id}`). The API orders sessions by their random id, so they are all read and sorted here:
// a user has few.

import { useQuery, useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmAction } from '../../components/confirm-action.tsx'
import { formatTime } from '../../components/format.ts'
import { EmptyState, ErrorNotice, Loading } from '../../components/states.tsx'
import { describeUserAgent } from './user-agent.ts'

type Session = Schemas['Session']

async function allSessions(): Promise<Session[]> {
  const sessions: Session[] = []
  let cursor: string | undefined
  do {
    const page = await unwrap(api.GET('/api/v1/sessions', { params: { query: { cursor, limit: 100 } } }))
    sessions.push(...page.items)
    cursor = page.nextCursor ?? undefined
  } while (cursor)
  return sessions.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
}

function SignOutSession({ session }: { session: Session }) {
  const queries = useQueryClient()
  const where = describeUserAgent(session.userAgent)
  return (
    <ConfirmAction
      run={() => unwrap(api.DELETE('/api/v1/sessions/{id}', { params: { path: { id: session.id } } }))}
      onDone={() => {
        // Ending this browser's own session signs it out: `/me` answers 401 and the sign-in page shows.
        if (session.current) void queries.invalidateQueries({ queryKey: ['me'] })
        else void queries.invalidateQueries({ queryKey: ['account', 'sessions'] })
      }}
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
  const sessions = useQuery({ queryKey: ['account', 'sessions'], queryFn: allSessions })
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
