// What a declared create form is made of (its fields as data) and the body they send, apart from the form's
// components so that it can be tested without a browser.

import type { ReactNode } from 'react'
import { textOf } from './form.tsx'

/** A field of a `CreateForm`: its body field, label and hint, and what kind of input it is. */
export interface CreateField {
  /** The body field it sends, where a refusal of `body.<name>` shows. */
  readonly name: string
  /** Its visible label; the customer select says "Customer". */
  readonly label?: string
  readonly hint?: ReactNode
  /**
   * `number` sends a number, `checkbox` true or false, `yes-no` a select of Default (nothing sent), Yes and No,
   * `customer` is the customer select (staff's customers, a member's teams). Default text.
   */
  readonly type?: 'text' | 'number' | 'checkbox' | 'yes-no' | 'customer'
  /** A select among these values instead of a text input (the first chosen at first; `''`, "Default", sends none). */
  readonly options?: readonly string[]
  /** What the input starts at (a checkbox: checked or not). Default empty, the first option, unchecked. */
  readonly initial?: string | boolean
}

/** The words of a `yes-no` select's values. */
export const yesNo: Readonly<Record<string, string>> = { '': 'Default', true: 'Yes', false: 'No' }

/** The body the fields make: text trimmed, empty fields left out (the API then says what is missing). */
export function bodyOf(fields: readonly CreateField[], data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    if (field.type === 'checkbox') {
      body[field.name] = data.get(field.name) === 'true'
      continue
    }
    const text = textOf(data, field.name)
    if (text === undefined) continue
    body[field.name] =
      field.type === 'number' ? Number(text) : field.type === 'yes-no' ? text === 'true' : text
  }
  return body
}
