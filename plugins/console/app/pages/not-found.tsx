import { PageHeader } from '../components/page.tsx'
import { Link } from '../router.tsx'

export function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no page at this address. <Link to="/">Back to the dashboard</Link>.
      </p>
    </>
  )
}

/** A page the caller may not use: said plainly, with the permission it needs. */
export function NotAllowed({ scope }: { scope: string }) {
  return (
    <>
      <PageHeader title="Not available to you" />
      <p>
        This page needs the <code>{scope}</code> permission, which your account does not have here.{' '}
        <Link to="/">Back to the dashboard</Link>.
      </p>
    </>
  )
}

/** A page for the other side of the app (the operator console's for a team member, or the portal's for staff). */
export function NotForAudience({ staffPage }: { staffPage: boolean }) {
  return (
    <>
      <PageHeader title="Not available to you" />
      <p>
        This page belongs to the{' '}
        {staffPage ? 'operator console, for staff' : 'customer portal, for team members'}.{' '}
        <Link to="/">Back to the dashboard</Link>.
      </p>
    </>
  )
}
