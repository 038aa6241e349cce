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
