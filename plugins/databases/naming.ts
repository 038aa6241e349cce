// The names the servers see: a customer's chosen name behind a prefix of its own, and the hosts a login may use.

import { isIP } from 'node:net'

/** What a customer may call a database or a user: lower-case, digits, single underscores, at most 32 characters. */
export const chosenNamePattern = '^[a-z][a-z0-9]*(_[a-z0-9]+)*$'
const chosenName = new RegExp(chosenNamePattern)
export const chosenNameMaxLength = 32

/** Whether `name` is a name a customer may choose. */
export function isChosenName(name: string): boolean {
  return name.length <= chosenNameMaxLength && chosenName.test(name)
}

/**
 * The prefix every database and login of a customer carries: `c` and the last eight characters of its id,
 * lower-cased (`cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W` → `c5p7r9s8w`). Ids are ULIDs whose last characters are random
 * (or counted up within one millisecond), so prefixes of two customers differ but for a one-in-a-trillion chance,
 * which the unique real name per server turns into a refusal, never a shared database.
 */
export function customerPrefixOf(customerId: string): string {
  return `c${customerId.slice(-8).toLowerCase()}`
}

/**
 * The real name on the server of `name` chosen by `customerId`: `<prefix>_<name>`, at most 41 characters. Chosen
 * names never contain `__`, which the engines keep for roles of their own (PostgreSQL's `<database>__owner`).
 */
export function realNameOf(customerId: string, name: string): string {
  return `${customerPrefixOf(customerId)}_${name}`
}

const hostLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * `host` as a login's allowed host, lower-cased, or null when it is neither an IP address nor a host name. MariaDB
 * reads `%` and `_` in account hosts as wildcards: both are refused (IPv6 zones, which carry a `%`, too), so no
 * login is opened wider than asked.
 */
export function allowedHostOf(host: string): string | null {
  const value = host.trim().toLowerCase()
  // An IPv6 zone (`fe80::1%eth0`) would bring a `%` into the account's host, where MariaDB reads it as a wildcard.
  if (value.includes('%')) return null
  if (isIP(value) !== 0) return value
  if (value.length === 0 || value.length > 253) return null
  return value.split('.').every((label) => hostLabel.test(label)) ? value : null
}

/** The hosts every login may use unless told otherwise: the panel's own machine. */
export const loopbackHosts = ['127.0.0.1', 'localhost'] as const
