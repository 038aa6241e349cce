// A push as the form chooses it, the body it sends, and what it will change said in words before it is confirmed.

import type { Schemas } from './api.ts'

type PushRequest = Schemas['PushRequest']

export interface PushChoice {
  /** `all`, `none`, or the listed paths (one a line). */
  readonly files: 'all' | 'none' | 'paths'
  readonly paths: string
  readonly tables: 'all' | 'none' | 'listed'
  readonly tableNames: string
}

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter((line) => line !== '')

/** The body of `POST /sites/{id}/push` for `choice`. */
export function pushBody(choice: PushChoice): PushRequest {
  return {
    files: choice.files === 'all' ? true : choice.files === 'none' ? false : lines(choice.paths),
    tables: choice.tables === 'all' ? true : choice.tables === 'none' ? false : lines(choice.tableNames),
  }
}

/** What the push will change on the live site, in words: what a person confirms. */
export function pushPreview(choice: PushChoice, liveDomain: string, stagingDomain: string): string[] {
  const body = pushBody(choice)
  const said: string[] = [`A backup of ${liveDomain} is taken first: the undo restores it.`]
  if (body.files === true)
    said.push(`Every file of ${liveDomain} becomes the staging copy’s (its own wp-config.php is kept).`)
  else if (Array.isArray(body.files))
    said.push(`These paths of ${liveDomain} become the staging copy’s: ${body.files.join(', ')}.`)
  else said.push(`The files of ${liveDomain} are left as they are.`)
  if (body.tables === true) said.push(`The whole database of ${liveDomain} becomes the staging copy’s.`)
  else if (Array.isArray(body.tables))
    said.push(
      `These tables of ${liveDomain} are replaced by the staging copy’s: ${body.tables.join(', ')}; the others are left.`,
    )
  else said.push(`The database of ${liveDomain} is left as it is.`)
  if (body.tables !== false)
    said.push(`Addresses of ${stagingDomain} in what is pushed become ${liveDomain}’s.`)
  return said
}
