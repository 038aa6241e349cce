// What a DNS record may hold: its name relative to the zone, and its content checked per type, normalised as the
// zone file writes it. Pure checks: the rules between records (duplicates, a CNAME alone) are the routes'.

import { isIPv4, isIPv6 } from 'node:net'
import { FieldErrors } from '../../core/index.ts'
import { dnsProblems, type RecordType } from './contract.ts'

// A host name's label (RFC 1123), and any name's, which may hold `_` (`_dmarc`, `_acme-challenge`).
const host = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const any = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?'
const names = (label: string, more: string) => new RegExp(`^(?:${label}\\.)${more}${label}$`)

/** A domain of two labels or more, lower-case, without the final dot, whose last label is not a number. */
export const isDomain = (name: string) =>
  name.length <= 253 && names(host, '+').test(name) && !/\.\d+$/.test(name)
/** A domain a record points to (`any` labels for a CNAME), lower-cased and without the final dot; else null. */
const target = (text: string, label = host) => {
  const name = text.toLowerCase().replace(/\.$/, '')
  return name.length <= 253 && names(label, '+').test(name) ? name : null
}
/** Each type's content, normalised; null when the content is not one. */
const contentOf: Record<RecordType, (content: string) => string | null> = {
  A: (content) => (isIPv4(content) ? content : null),
  AAAA: (content) => (isIPv6(content) && !content.includes('%') ? content.toLowerCase() : null),
  CNAME: (content) => target(content, any),
  MX: (content) => {
    const [, preference = '', exchange = ''] = /^(\d{1,5})\s+(\S+)$/.exec(content) ?? []
    const name = target(exchange)
    return name && Number(preference) <= 65535 ? `${Number(preference)} ${name}` : null
  },
  TXT: (content) => (/^[^\p{Cc}]+$/u.test(content) ? content : null),
}

/**
 * The record's name (relative: `@`, `*`, `www`, `*.shop`; host names for A, AAAA and MX) and content as stored,
 * each refusal at its field, both in one 422.
 */
export function checkedRecord(zone: string, record: { name: string; type: RecordType; content: string }) {
  const name = record.name.toLowerCase()
  const content = contentOf[record.type](record.content)
  const label = record.type === 'TXT' || record.type === 'CNAME' ? any : host
  const valid = /^[@*]$/.test(name) || names(label, '*').test(name.replace(/^\*\./, ''))
  const refusals = new FieldErrors()
  if (!valid || `${name}.${zone}`.length > 253) refusals.add(dnsProblems.invalid_record_name, 'body.name')
  if (content === null) refusals.add(dnsProblems.invalid_record_content, 'body.content')
  if (refusals.hasAny() || content === null) throw refusals.toProblem()
  return { name, content }
}
