// A customer's team: who is on it with which role, changing roles, removing members and adding them. Listing a
// team needs `members:manage` on the customer (owners, admins and staff), so this is only shown to them.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { formatTime } from '../../components/format.ts'
import { Section } from '../../components/page.tsx'
import { useSession } from '../../session.tsx'
import { AddMember } from './add-member.tsx'
import { MemberRole } from './member-role.tsx'
import { RemoveMember } from './remove-member.tsx'

type Member = Schemas['Member']

export function TeamSection({ customerId }: { customerId: string }) {
  const session = useSession()
  return (
    <>
      <Section title="Team">
        <CursorTable<Member>
          queryKey={['customers', customerId, 'members']}
          load={(cursor) =>
            unwrap(
              api.GET('/api/v1/customers/{id}/members', {
                params: { path: { id: customerId }, query: { cursor } },
              }),
            )
          }
          caption="Team members"
          rowKey={(member) => member.userId}
          empty="Nobody is on this team yet. Add a member below: they sign in with their own account."
          columns={[
            {
              header: 'E-mail',
              cell: (member) =>
                member.userId === session.me.user.id ? (
                  <>
                    {member.email} <span className="badge">you</span>
                  </>
                ) : (
                  member.email
                ),
            },
            { header: 'Role', cell: (member) => <MemberRole customerId={customerId} member={member} /> },
            { header: 'Added', cell: (member) => formatTime(member.createdAt) },
            { header: 'Actions', cell: (member) => <RemoveMember customerId={customerId} member={member} /> },
          ]}
        />
      </Section>
      <Section title="Add a member">
        <AddMember customerId={customerId} />
      </Section>
    </>
  )
}
