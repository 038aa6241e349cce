// Deletes a customer (staff with `customer:delete`): confirmed first, then the API answers it `deleting` with the
// job that removes everything it owns; the page follows that job and goes back to the list when the customer is gone.

import { useQueryClient } from '@tanstack/react-query'
import {
  ActionError,
  ConfirmButton,
  JobProgress,
  navigate,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Customer = Schemas['Customer']

export function CustomerDelete({ customer, onStarted }: { customer: Customer; onStarted: () => void }) {
  const queries = useQueryClient()
  const session = useSession()
  const remove = useAction(
    () => unwrap(api.DELETE('/api/v1/customers/{id}', { params: { path: { id: customer.id } } })),
    () => onStarted(),
  )
  // Its deletion's job: as the DELETE answered it, or the one already under way when the page was opened.
  const jobId = remove.data?.jobId ?? (customer.status === 'deleting' ? customer.jobId : null)
  if (remove.isSuccess || customer.status === 'deleting')
    return (
      <>
        <p role="status">Deleting {customer.name} and everything it owns…</p>
        {jobId && session.can('job:read') ? (
          <JobProgress
            key={jobId}
            jobId={jobId}
            onFinished={(job) => {
              // Gone: its own answer is dropped rather than read again (a 404).
              if (job.kind === 'customer.delete' && job.status === 'succeeded') {
                queries.removeQueries(
                  api.query('/api/v1/customers/{id}', { params: { path: { id: customer.id } } }),
                )
                navigate('/customers')
              }
            }}
          />
        ) : null}
        <ActionError action={remove} />
      </>
    )
  return (
    <>
      <p className="muted">
        Removes the customer and everything it owns: its sites from their nodes, its databases and their
        users, certificates, SFTP accounts, shell sessions, subscriptions (cancelled), its team and the API
        tokens limited to it. The audit log keeps its entries. This cannot be undone.
      </p>
      <ConfirmButton
        confirmLabel="Confirm delete"
        disabled={remove.isPending}
        onConfirm={() => remove.mutate(undefined)}
      >
        Delete customer
      </ConfirmButton>
      <ActionError action={remove} />
    </>
  )
}
