// A customer's team: who is on it with which role, changing roles, removing members and adding them. Listing a
// team needs `members:manage` on the customer (owners, admins and staff), so this is only shown to them.

import { CursorTable, formatTime, Section, useSession } from '../../console/kit.ts'
import { AddMember } from './add-member.tsx'
import { api, type Schemas } from './api.ts'
import { MemberRole } from './member-role.tsx'
import { RemoveMember } from './remove-member.tsx'

type Member = Schemas['Member']

export function TeamSection({ customerId }: { customerId: string }) {
  const session = useSession()
  return (
    <>
      <Section title="Team">
        <CursorTable<Member>
          list={api.list('/api/v1/customers/{id}/members', {
            params: { path: { id: customerId } },
          })}
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
