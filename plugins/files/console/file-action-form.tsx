// The frame of the forms that act on a site's files (new folder, move, copy, change mode, archive, extract): the
// fields and the button on one line, then the refusal with what it means when the cause is the site or its node.

import type { ReactNode } from 'react'
import { type ApiForm, FormProblem, SubmitButton } from '../../console/kit.ts'
import { explanationOf } from './file-problem.tsx'

/** A file action's form: `children` are its fields, `submit` its button's words. */
export function FileActionForm<R>({
  form,
  submit,
  className = 'files-action-form',
  status,
  children,
}: {
  form: ApiForm<R>
  /** The button's words ("Create archive"). */
  submit: ReactNode
  className?: string
  /** What the form says after it worked, below the refusal's place. */
  status?: ReactNode
  /** The fields. */
  children: ReactNode
}) {
  const explanation = explanationOf(form.problem)
  return (
    <form className={className} onSubmit={form.submit} noValidate>
      <div className="form-inline">
        {children}
        <SubmitButton form={form}>{submit}</SubmitButton>
      </div>
      <FormProblem form={form} />
      {explanation ? <p className="problem-hint">{explanation}</p> : null}
      {status}
    </form>
  )
}
