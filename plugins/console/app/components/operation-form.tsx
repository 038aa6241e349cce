// A create form made from its operation: the fields of the POST's JSON body and the scope it needs, as the served
// document says them, changed only where the page says more (a label, a hint, a field left out).

import type { ReactNode } from 'react'
import { useApiDocument } from '../api/api-document.ts'
import type { ApiClient } from '../api/client.ts'
import { type BodyField, bodyFields, operationScope, takesIdempotencyKey } from '../api/operations.ts'
import { problemOf } from '../api/problem.ts'
import { type CreateField, CreateForm } from './create-form.tsx'
import { useIdempotencyKey } from './idempotency-key.ts'
import { ErrorNotice, Loading } from './states.tsx'

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never
/** The paths of `P` taking a POST. */
export type PostPath<P> = { [K in keyof P]: P[K] extends { post: unknown } ? K : never }[keyof P] & string
/** The JSON body of the POST at `K`. */
export type BodyOf<P, K extends keyof P> = P[K] extends { post: { requestBody?: infer B } }
  ? Json<NonNullable<B>>
  : never
/** What the POST at `K` answers when it creates (201). */
export type CreatedOf<P, K extends keyof P> = P[K] extends { post: { responses: { 201: infer R } } }
  ? Json<R>
  : never

/**
 * What a page says of a body field beyond its schema: its own label, hint, kind, options or initial value;
 * `false` leaves it out (the API's default then applies).
 */
export type FieldChange =
  | Partial<Pick<CreateField, 'label' | 'hint' | 'type' | 'options' | 'initial'>>
  | false
/** Changes to the fields of a body, by field name. */
export type FieldChanges<Body> = { readonly [K in keyof Body]?: FieldChange }

/** A description's `code` spans shown as code. */
const describedBy = (hint: string | undefined): ReactNode =>
  hint?.split(/`([^`]+)`/).map((part, index) => (index % 2 === 1 ? <code key={part}>{part}</code> : part))

/** The fields of the form: those of the body, changed as the page says. */
function formFields(
  derived: readonly BodyField[],
  changes: Readonly<Record<string, FieldChange | undefined>>,
): CreateField[] {
  return derived.flatMap((field) => {
    const change = changes[field.name]
    return change === false ? [] : [{ ...field, hint: describedBy(field.hint), ...change }]
  })
}

/** The typed client's POST, as the form calls it with the body its fields make. */
type LoosePost = (
  path: string,
  init: {
    params: { path: Readonly<Record<string, string>>; header?: Readonly<Record<string, string>> }
    body: unknown
  },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>

/**
 * A {@link CreateForm} for the POST at `path` (its path parameters in `params`): its fields and scope are the
 * operation's (see `bodyFields` in api/operations.ts); `fields` changes or leaves out some by name. It sends an
 * `Idempotency-Key` when the operation takes one, so a retry after a lost answer creates nothing twice.
 * @example <OperationForm api={api} path="/api/v1/dns-zones" title="New zone" submitLabel="Add zone" fields={{ name: { label: 'Domain' } }} />
 */
export function OperationForm<P extends {}, K extends PostPath<P>>({
  api,
  path,
  params = {},
  title,
  submitLabel,
  fields = {},
  onCreated,
}: {
  api: ApiClient<P>
  path: K
  params?: Readonly<Record<string, string>>
  title: string
  submitLabel: string
  fields?: FieldChanges<BodyOf<P, K>>
  /** Called with the answer; without it the form clears itself for the next one. */
  onCreated?: (created: CreatedOf<P, K>) => void
}) {
  const document = useApiDocument()
  const idempotency = useIdempotencyKey()
  if (document.isPending) return <Loading label="Loading the form…" />
  if (document.isError) return <ErrorNotice error={document.error} />
  const post = api.POST as unknown as LoosePost
  const keyed = takesIdempotencyKey(document.data, 'post', path)
  const submit = async (body: unknown) => {
    const header = keyed ? { 'Idempotency-Key': idempotency.key() } : undefined
    const answer = await post(path, { params: { path: params, ...(header ? { header } : {}) }, body })
    if (answer.response.ok) idempotency.afterSuccess()
    else idempotency.afterFailure(problemOf(answer.response.status, answer.error, null))
    return answer
  }
  return (
    <CreateForm<unknown>
      title={title}
      scope={operationScope(document.data, 'post', path) ?? undefined}
      fields={formFields(bodyFields(document.data, 'post', path), fields)}
      submit={submit}
      submitLabel={submitLabel}
      onCreated={onCreated as ((created: unknown) => void) | undefined}
    />
  )
}
