// `/support`: how to reach the provider's support, as `GET /support` answers it.

import { useQuery } from '@tanstack/react-query'
import { ErrorNotice, Facts, Loading, PageHeader } from '../../../plugins/console/kit.ts'
import { api } from './api.ts'

export function SupportPage() {
  const contact = useQuery(api.query('/api/v1/support'))
  return (
    <>
      <PageHeader title="Support" subtitle="How to reach the people who run this service." />
      {contact.isPending ? (
        <Loading />
      ) : contact.isError ? (
        <ErrorNotice error={contact.error} />
      ) : (
        <Facts
          items={[
            [
              'E-mail',
              <a key="email" href={`mailto:${contact.data.email}`}>
                {contact.data.email}
              </a>,
            ],
            ['Hours', contact.data.hours],
          ]}
        />
      )}
    </>
  )
}
