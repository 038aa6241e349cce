// A job as the API returns it and as `job.finished` carries it.

import { type Static, Type as t } from '@sinclair/typebox'
import { jobStatuses } from './job-definition.ts'

export const Job = t.Object(
  {
    id: t.String({ description: 'Identifier, `job_…`.', examples: ['job_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    kind: t.String({ description: 'What the job does, `resource.verb`: one of the kinds the plugins run.' }),
    status: t.Union(
      jobStatuses.map((status) => t.Literal(status)),
      { description: '`queued` and `running` are live; `succeeded`, `failed` and `cancelled` are final.' },
    ),
    progress: t.Integer({ minimum: 0, maximum: 100, description: 'Percent done.' }),
    step: t.Union([t.String(), t.Null()], { description: 'What the job is doing now (or did last).' }),
    customerId: t.Union([t.String(), t.Null()], {
      description: 'The customer it works for; null for staff work.',
    }),
    subject: t.Object(
      { type: t.String(), id: t.String() },
      { description: 'The resource the job works on: its type and id.' },
    ),
    attempts: t.Integer({ minimum: 0, description: 'Runs started so far (retries and resumed runs count).' }),
    maxAttempts: t.Integer({ minimum: 1 }),
    cancellable: t.Boolean({ description: 'Whether `POST /jobs/{id}/cancel` can stop it while it is live.' }),
    cancelRequested: t.Boolean({
      description: 'A cancel was asked for and the running step is being stopped.',
    }),
    result: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], {
      description: 'What the job produced, once succeeded.',
    }),
    error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()], {
      description: 'The last failure: of the final attempt when `failed`, of an earlier one while retrying.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
    startedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    finishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { $id: 'Job' },
)
export type Job = Static<typeof Job>
