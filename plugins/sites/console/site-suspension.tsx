// Staff suspend a site (e.g. for abuse) and lift their suspension; billing's holds are lifted on the subscription.

import { ActionError, ConfirmButton, unwrap, useAction } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']

export function SiteSuspension({ site }: { site: Site }) {
  const suspend = useAction(() =>
    unwrap(api.POST('/api/v1/sites/{id}/suspend', { params: { path: { id: site.id } } })),
  )
  const unsuspend = useAction(() =>
    unwrap(api.POST('/api/v1/sites/{id}/unsuspend', { params: { path: { id: site.id } } })),
  )
  const busy = suspend.isPending || unsuspend.isPending
  return (
    <>
      {site.suspendedByStaff ? (
        <>
          <p>Staff suspended this site: it is not served until you unsuspend it.</p>
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => unsuspend.mutate(undefined)}
          >
            Unsuspend site
          </button>
        </>
      ) : (
        <>
          <p className="muted">
            {site.status === 'suspended'
              ? 'Billing holds this site. Suspending it here too keeps it suspended after billing lifts its hold.'
              : 'Stops serving the site at once, e.g. for abuse; it stays suspended until staff unsuspend it.'}
          </p>
          <ConfirmButton
            confirmLabel="Confirm suspension"
            disabled={busy}
            onConfirm={() => suspend.mutate(undefined)}
          >
            Suspend site
          </ConfirmButton>
        </>
      )}
      <ActionError action={suspend} />
      <ActionError action={unsuspend} />
    </>
  )
}
