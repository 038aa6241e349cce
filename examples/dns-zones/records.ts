// What a DNS record may hold: its name relative to the zone, and its content checked per type, normalised as the
// zone file writes it. Pure checks: the store's rules (duplicates, CNAME conflicts) are the routes'.

import { isIPv4, isIPv6 } from 'node:net'
import { FieldErrors, type ProblemRef } from '../../core/index.ts'

/** The record types the plugin keeps. */
export const recordTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT'] as const
export type RecordType = (typeof recordTypes)[number]

// A host name's label (RFC 1123), and a label of any other name, which may hold `_` (`_dmarc`, `_acme-challenge`).
const host = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const any = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?'
const named = (label: string, min: number) => new RegExp(`^(?:${label}\\.){${min},}${label}$`)
/** A zone's name: a domain of two labels or more, lower-case, without the final dot; its last label not a number. */
export const isZoneName = (name: string) =>
  name.length <= 253 && named(host, 1).test(name) && !/\.\d+$/.test(name)
/** A relative owner name: `@`, `*`, `www`, `*.shop`; only names of A, AAAA and MX records must be host names. */
const ownerOf = (type: RecordType) =>
  new RegExp(
    `^(?:@|\\*|(?:\\*\\.)?(?:${type === 'TXT' || type === 'CNAME' ? any : host}\\.)*${type === 'TXT' || type === 'CNAME' ? any : host})$`,
  )

/** A name outside the zone as a record points to it, without the final dot; null when it is none. */
function target(text: string, label: string): string | null {
  const name = text.toLowerCase().replace(/\.$/, '')
  return name.length <= 253 && named(label, 1).test(name) ? name : null
}

/** Each type's content, normalised, or null when the content is not one. */
const contentOf: Record<RecordType, (content: string) => string | null> = {
  A: (content) => (isIPv4(content) ? content : null),
  AAAA: (content) => (isIPv6(content) && !content.includes('%') ? content.toLowerCase() : null),
  CNAME: (content) => target(content, any),
  MX: (content) => {
    const [, preference = '', exchange = ''] = /^(\d{1,5})\s+(\S+)$/.exec(content) ?? []
    const name = target(exchange, host)
    return name && Number(preference) <= 65535 ? `${Number(preference)} ${name}` : null
  },
  TXT: (content) => (/^[^\p{Cc}]+$/u.test(content) ? content : null),
}

/**
 * The record's name and content as stored, each refusal at its field (both in one 422).
 * @example checkedRecord('example.com', { name: 'WWW', type: 'CNAME', content: 'shop.example.net.' }, problems)
 */
export function checkedRecord(
  zone: string,
  record: { readonly name: string; readonly type: RecordType; readonly content: string },
  problems: { readonly name: ProblemRef; readonly content: ProblemRef },
): { name: string; content: string } {
  const name = record.name.toLowerCase()
  const content = contentOf[record.type](record.content)
  const refusals = new FieldErrors()
  const full = name === '@' ? zone : `${name}.${zone}`
  if (!ownerOf(record.type).test(name) || full.length > 253) refusals.add(problems.name, 'body.name')
  if (content === null)
    refusals.add(problems.content, 'body.content', `Not the content of a ${record.type} record.`)
  if (refusals.hasAny() || content === null) throw refusals.toProblem()
  return { name, content }
}
