// Deletes a customer (staff with `customer:delete`): confirmed first, then the API answers it `deleting` with the
// job that removes everything it owns; the page follows that job and goes back to the list when the customer is gone.

import { useQueryClient } from '@tanstack/react-query'
import { DeleteByJob, navigate, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Customer = Schemas['Customer']

export function CustomerDelete({ customer, onStarted }: { customer: Customer; onStarted: () => void }) {
  const queries = useQueryClient()
  const read = api.query('/api/v1/customers/{id}', { params: { path: { id: customer.id } } })
  return (
    <DeleteByJob
      label="Delete customer"
      jobKind="customer.delete"
      run={() => unwrap(api.DELETE('/api/v1/customers/{id}', { params: { path: { id: customer.id } } }))}
      underWay={customer.status === 'deleting' ? customer.jobId : null}
      deleting={<>Deleting {customer.name} and everything it owns…</>}
      onStarted={onStarted}
      onGone={() => {
        // Gone: its own answer is dropped rather than read again (a 404).
        queries.removeQueries(read)
        navigate('/customers')
      }}
    >
      Removes the customer and everything it owns: its sites from their nodes, its databases and their users,
      certificates, SFTP accounts, shell sessions, subscriptions (cancelled), its team and the API tokens
      limited to it. The audit log keeps its entries. This cannot be undone.
    </DeleteByJob>
  )
}
