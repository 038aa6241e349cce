// A job's or audit entry's subject: its type and id, linked to its page when the app has one for that type.

import { Link } from '../../router.tsx'

/** The app's page of each subject type that has one. */
const pages: Readonly<Record<string, string>> = {
  site: '/sites',
  database: '/databases',
  certificate: '/certificates',
  customer: '/customers',
  plan: '/plans',
  subscription: '/subscriptions',
  node: '/nodes',
  webhook: '/webhooks',
  job: '/jobs',
}

export function SubjectLink({ type, id }: { type: string; id: string }) {
  const page = pages[type]
  return (
    <>
      {type}{' '}
      {page ? (
        <Link to={`${page}/${encodeURIComponent(id)}`}>
          <code>{id}</code>
        </Link>
      ) : (
        <code>{id}</code>
      )}
    </>
  )
}
