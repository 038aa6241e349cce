// `/account`: the signed-in user: who they are, their teams, changing their password, and where they are signed in.

import { useBrandName } from '../../components/brands.ts'
import { Facts, PageHeader, Section } from '../../components/page.tsx'
import { roleOptions } from '../../components/team-roles.ts'
import { Link } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { ChangePassword } from './change-password.tsx'
import { SessionsTable } from './sessions-section.tsx'

const kinds = { platform: 'Platform staff', brand: 'Brand staff', member: 'Customer team member' } as const

function Memberships() {
  const session = useSession()
  const memberships = session.me.memberships
  if (memberships.length === 0) return <p className="muted">You are on no customer’s team.</p>
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Your teams</caption>
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>
          {memberships.map((m) => (
            <tr key={m.customerId}>
              <td>
                {m.role === 'developer' ? (
                  // Developers do not read the customer record (docs/tenancy.md), so there is no page to link.
                  (m.customerName ?? m.customerId)
                ) : (
                  <Link to={`/customers/${encodeURIComponent(m.customerId)}`}>
                    {m.customerName ?? m.customerId}
                  </Link>
                )}
              </td>
              <td>{roleOptions.find((option) => option.value === m.role)?.label ?? m.role}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function AccountPage() {
  const { me } = useSession()
  const brandName = useBrandName()
  return (
    <>
      <PageHeader title="Your account" />
      <Section title="Profile">
        <Facts
          items={[
            ['E-mail', me.user.email],
            ['Kind', kinds[me.kind]],
            ['Brand', me.brandId ? brandName(me.brandId) : '—'],
            ['Id', <code key="id">{me.user.id}</code>],
          ]}
        />
      </Section>
      {me.kind === 'member' || me.memberships.length > 0 ? (
        <Section title="Teams">
          <Memberships />
        </Section>
      ) : null}
      <Section title="Change password">
        <ChangePassword />
      </Section>
      <Section title="Where you are signed in">
        <SessionsTable />
      </Section>
    </>
  )
}
