// What a route's handler receives: the request's checked input, its caller and view, and the writers that record
// what it changes as that caller did it (audit entries, events, jobs), each in the handler's transaction.

import type { Caller } from '../auth/caller.ts'
import { writeEvent } from '../events/outbox.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { AuditInput, EventInput } from '../plugin/route.ts'
import type { Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { RequestInfo, RouteUnderway } from './route-runtime.ts'

/** What a handler's writers started, so the job workers and the event dispatcher are woken once it returns. */
export interface Started {
  jobs: boolean
  events: boolean
}

/** The parts of a handler's input that differ between answering a request and representing a read. */
export interface InputParts {
  readonly params: Record<string, string>
  readonly query: unknown
  readonly body: unknown
  readonly principal: unknown
}

/** The handler's input for one request. */
export type HandlerInputOf = ReturnType<ReturnType<typeof handlerInputs>>

/** Makes the handler inputs of one route. */
export function handlerInputs({ plugin, runtime, eventKinds }: RouteUnderway) {
  return (
    caller: Caller | null,
    view: TenantView | null,
    request: Request,
    info: RequestInfo,
    parts: InputParts,
    started: Started,
  ) => {
    const actor = {
      userId: caller?.user.id ?? null,
      tokenId: caller?.token?.id ?? null,
      requestId: info.requestId,
      sourceAddress: info.address,
    }
    return {
      ...parts,
      caller,
      view,
      db: runtime.store.db,
      request,
      requestId: info.requestId,
      address: info.address,
      audit: (trx: Trx, entry: AuditInput) => runtime.audit(trx, actor, entry),
      emit: async (trx: Trx, event: EventInput) => {
        if (!eventKinds.has(event.kind))
          throw new Error(`Plugin "${plugin}" emitted undeclared event kind "${event.kind}"`)
        await writeEvent(trx, event)
        started.events = true
      },
      enqueueJob: async (trx: Trx, job: JobRequest) => {
        const id = await runtime.enqueueJob(trx, job, {
          userId: actor.userId,
          tokenId: actor.tokenId,
          requestId: info.requestId,
        })
        started.jobs = true
        return id
      },
    }
  }
}
