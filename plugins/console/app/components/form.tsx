// Forms on the API: a submit runs an action; a refusal is shown where it belongs, each `errors[]` item at the field
// its `location` names (`body.limits.diskMB` → the field named `limits.diskMB`), the rest in a banner above the
// button; the first field in error takes the focus. What the user typed stays.

import {
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import { ApiProblem } from '../api/problem.ts'

/** A form's state: whether it is sending, and how the last attempt was refused. */
export interface ApiForm<R> {
  readonly submit: (event: FormEvent<HTMLFormElement>) => void
  readonly pending: boolean
  readonly problem: ApiProblem | null
  /** A failure that is not a refusal (the network). */
  readonly error: unknown
  /** What the last successful submit answered. */
  readonly result: R | null
  /** Called by fields so the banner knows which errors no field shows. */
  register(name: string): void
  readonly fieldNames: readonly string[]
  reset(): void
}

/** Runs `action` with the form's data on submit. */
export function useApiForm<R>(
  action: (data: FormData, form: HTMLFormElement) => Promise<R>,
  options: { onSuccess?: (result: R, form: HTMLFormElement) => void; resetOnSuccess?: boolean } = {},
): ApiForm<R> {
  const [pending, setPending] = useState(false)
  const [problem, setProblem] = useState<ApiProblem | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [result, setResult] = useState<R | null>(null)
  const names = useRef(new Set<string>())
  const submitted = useRef<HTMLFormElement | null>(null)
  // Once React has shown a refusal: the first field in error, else the banner, takes the focus (the disabled
  // button that had it lost it while the request ran).
  useEffect(() => {
    if (!problem && !error) return
    const form = submitted.current
    const target =
      form?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      form?.querySelector<HTMLElement>('.form-problem') ??
      form?.parentElement?.querySelector<HTMLElement>('.form-problem')
    target?.focus()
  }, [problem, error])
  return {
    pending,
    problem,
    error,
    result,
    // Read when the banner renders (after the fields above it registered), not when the form's hook ran.
    get fieldNames() {
      return [...names.current]
    },
    register: (name) => void names.current.add(name),
    reset: () => {
      setProblem(null)
      setError(null)
      setResult(null)
    },
    submit(event) {
      event.preventDefault()
      const element = event.currentTarget
      if (pending) return
      submitted.current = element
      setPending(true)
      setProblem(null)
      setError(null)
      setResult(null)
      action(new FormData(element), element)
        .then((answer) => {
          setResult(answer)
          if (options.resetOnSuccess) element.reset()
          options.onSuccess?.(answer, element)
        })
        .catch((failure: unknown) => {
          if (failure instanceof ApiProblem) setProblem(failure)
          else setError(failure)
        })
        .finally(() => setPending(false))
    },
  }
}

/** The text of a field in `data`, trimmed; undefined when empty. */
export function textOf(data: FormData, name: string): string | undefined {
  const value = data.get(name)
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

/** A number field's value: undefined when empty, NaN passes on as is so the API explains it. */
export function numberOf(data: FormData, name: string): number | undefined {
  const text = textOf(data, name)
  return text === undefined ? undefined : Number(text)
}

/**
 * What every field takes: the form; `name`, the body field it sends (`limits.diskMB`), where a refusal of
 * `body.<name>` shows; its visible label; an optional hint; and the native control's own attributes.
 */
type FieldProps<R, Native> = { form: ApiForm<R>; name: string; label: string; hint?: ReactNode } & Omit<
  Native,
  'form'
>

function useFieldProps<R>(form: ApiForm<R>, name: string, hint?: ReactNode) {
  form.register(name)
  const id = useId()
  const message = form.problem?.fieldMessage(name) ?? null
  const describedBy = [hint ? `${id}-hint` : null, message ? `${id}-error` : null].filter(Boolean).join(' ')
  return {
    id,
    message,
    control: {
      id,
      name,
      'aria-invalid': message ? true : undefined,
      'aria-describedby': describedBy || undefined,
    } as const,
    extras: (
      <>
        {hint ? (
          <p className="hint" id={`${id}-hint`}>
            {hint}
          </p>
        ) : null}
        {message ? (
          <p className="field-error" id={`${id}-error`}>
            {message}
          </p>
        ) : null}
      </>
    ),
  }
}

/** A labelled field: the label above its control, then the hint and the error the control points at. */
function Field({
  field,
  label,
  children,
}: {
  field: ReturnType<typeof useFieldProps>
  label: string
  children: ReactNode
}) {
  return (
    <div className={`field${field.message ? ' has-error' : ''}`}>
      <label htmlFor={field.id}>{label}</label>
      {children}
      {field.extras}
    </div>
  )
}

export function TextField<R>({
  form,
  name,
  label,
  hint,
  ...input
}: FieldProps<R, InputHTMLAttributes<HTMLInputElement>>) {
  const field = useFieldProps(form, name, hint)
  return (
    <Field field={field} label={label}>
      <input type="text" {...input} {...field.control} />
    </Field>
  )
}

export function TextAreaField<R>({
  form,
  name,
  label,
  hint,
  ...input
}: FieldProps<R, TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  const field = useFieldProps(form, name, hint)
  return (
    <Field field={field} label={label}>
      <textarea {...input} {...field.control} />
    </Field>
  )
}

export function SelectField<R>({
  form,
  name,
  label,
  hint,
  options,
  ...select
}: FieldProps<R, SelectHTMLAttributes<HTMLSelectElement>> & {
  options: readonly { readonly value: string; readonly label: string }[]
}) {
  const field = useFieldProps(form, name, hint)
  return (
    <Field field={field} label={label}>
      <select {...select} {...field.control}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  )
}

export function CheckboxField<R>({
  form,
  name,
  label,
  hint,
  ...input
}: FieldProps<R, InputHTMLAttributes<HTMLInputElement>>) {
  const field = useFieldProps(form, name, hint)
  return (
    <div className={`field checkbox${field.message ? ' has-error' : ''}`}>
      <input type="checkbox" value="true" {...input} {...field.control} />
      <label htmlFor={field.id}>{label}</label>
      {field.extras}
    </div>
  )
}

/** The refusal's title and detail, with the field errors no field shows. */
export function FormProblem<R>({ form }: { form: ApiForm<R> }) {
  const { problem, error } = form
  if (!problem && !error) return null
  // An error about the whole body says what the detail already says.
  const unplaced = (problem?.unplacedErrors(form.fieldNames) ?? []).filter(
    (item) => !(item.location === 'body' && item.message === problem?.detail),
  )
  // Every field error shown at its field: the banner only points there, rather than repeating one of them.
  if (problem && problem.errors.length > 0 && unplaced.length === 0)
    return (
      <div className="notice notice-error form-problem" role="alert" tabIndex={-1}>
        <p>
          <strong>
            {problem.errors.length === 1 ? 'One field needs' : `${problem.errors.length} fields need`}{' '}
            attention.
          </strong>{' '}
          See the message at {problem.errors.length === 1 ? 'it' : 'each'} above.
        </p>
      </div>
    )
  return (
    <div className="notice notice-error form-problem" role="alert" tabIndex={-1}>
      <p>
        <strong>{problem?.title ?? 'The request did not reach the panel'}</strong>
        {problem?.detail ? ` ${problem.detail}` : ''}
        {!problem && error ? ` ${String((error as Error).message ?? error)}` : ''}
      </p>
      {unplaced.length > 0 ? (
        <ul>
          {unplaced.map((item) => (
            <li key={`${item.location}:${item.message}`}>
              <code>{item.location}</code>: {item.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

export function SubmitButton<R>({ form, children }: { form: ApiForm<R>; children: ReactNode }) {
  return (
    <button type="submit" className="button" disabled={form.pending} aria-busy={form.pending || undefined}>
      {form.pending ? 'Working…' : children}
    </button>
  )
}

/**
 * The end of most forms: the refusal, then the submit button on a line of its own (the wrapper keeps the form's
 * grid from stretching the button across the form).
 */
export function FormFooter<R>({ form, children }: { form: ApiForm<R>; children: ReactNode }) {
  return (
    <>
      <FormProblem form={form} />
      <div>
        <SubmitButton form={form}>{children}</SubmitButton>
      </div>
    </>
  )
}
