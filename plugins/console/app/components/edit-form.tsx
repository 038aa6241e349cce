// Changing one resource in place (a PATCH from its page): the resource and the lists that show it are read again
// (the client does so for every change, from its path), and the form says so. Written once because every area has
// such a form, and a fix to what happens after a save belongs to all of them.

import { type ApiForm, useApiForm } from './form.tsx'

/** What a save answers when the form changed nothing, so nothing was sent. */
export const unchanged = 'unchanged'
/** The type of {@link unchanged}. */
export type Unchanged = typeof unchanged

/**
 * A form whose `save` answers the changed resource (or {@link unchanged}); `onSaved` runs after a save.
 * @example useEditForm((data) => unwrap(api.PATCH('/api/v1/nodes/{id}', …)))
 */
export function useEditForm<T>(
  save: (data: FormData) => Promise<T | Unchanged>,
  options: { readonly onSaved?: (saved: T, form: HTMLFormElement) => void } = {},
): ApiForm<T | Unchanged> {
  return useApiForm<T | Unchanged>(save, {
    onSuccess: (result, element) => {
      if (result !== unchanged) options.onSaved?.(result as T, element)
    },
  })
}

/** "Saved." after a save ("Nothing to change." when nothing was sent); nothing before one, or after a refusal. */
export function SavedNotice<T>({ form }: { form: ApiForm<T> }) {
  if (form.result === null || form.pending || form.problem) return null
  return (
    <p className="notice notice-info" role="status">
      {form.result === unchanged ? 'Nothing to change.' : 'Saved.'}
    </p>
  )
}

/** Whether a field's new value is its old one: objects (a `limits`) field by field, the rest as they are. */
function same(before: unknown, after: unknown): boolean {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null)
    return Object.is(before, after)
  const was = before as Record<string, unknown>
  const is = after as Record<string, unknown>
  return [...new Set([...Object.keys(was), ...Object.keys(is)])].every((key) => same(was[key], is[key]))
}

/**
 * The fields of `proposed` that differ from `current`, for a PATCH that sends only what changed (so a rename does
 * not start the job a new domain would). A field left `undefined` (not in the form) is not sent.
 * @example changedFields({ name: site.name }, { name: textOf(data, 'name') })
 */
export function changedFields<T extends object>(current: Partial<T>, proposed: Partial<T>): Partial<T> {
  const changed: Partial<T> = {}
  for (const key of Object.keys(proposed) as (keyof T)[]) {
    const value = proposed[key]
    if (value !== undefined && !same(current[key], value)) changed[key] = value
  }
  return changed
}
