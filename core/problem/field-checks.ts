// Schemas for checks plain JSON Schema words awkwardly, so they fail with every other field in one 422.

import { type StringOptions, type TString, Type as t } from '@sinclair/typebox'

/** The pattern that marks text which must not be blank (anything but whitespace somewhere). */
export const nonBlankPattern = '\\S'

/**
 * A string that must hold something besides spaces: `"   "` is refused as `too_short` ("must not be blank") with
 * the body's other failures, before the handler runs, and the handler receives it trimmed.
 * @example name: nonBlankText({ maxLength: 100, description: 'Name of the site.' })
 */
export function nonBlankText(options: StringOptions = {}): TString {
  return t.String({ minLength: 1, ...options, pattern: nonBlankPattern })
}
