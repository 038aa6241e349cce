// What the runtime keeps of a site in `<home>/state.json` (root's, in a home the site's user cannot write): the
// spec it last applied, whether the site is served or suspended, how far its application's installation got, and
// the certificate it is served with over HTTPS.

import { readFile } from 'node:fs/promises'
import type { SiteEndpoint, SiteServing, SiteSpec } from '../contract.ts'
import { type RuntimeLayout, siteLayout } from './layout.ts'

/** The contents of `state.json`. */
export interface SiteState {
  readonly siteId: string
  readonly handle: string
  readonly domain: string
  readonly type: string
  readonly customerId: string
  readonly diskMB: number | null
  /** The limits its group holds it to (absent from older files: unlimited). */
  readonly cpuPercent?: number | null
  readonly memoryMB?: number | null
  readonly processes?: number | null
  readonly state: 'active' | 'suspended'
  /** The site's Unix user, or null when the runtime makes none (files only, or not root). */
  readonly unixUser: string | null
  /** The application installed into the site, and how far its installation got (its own word); null: none. */
  readonly app: { readonly kind: string; readonly stage: string } | null
  /** The fingerprint of the certificate served over HTTPS (its files in `<dataDir>/tls/<site id>/`), or null. */
  readonly certificate: string | null
  /**
   * The servers its application's settings name (its database server): on the node's own addresses, its processes
   * reach them through the node's closure. Absent from older files: none.
   */
  readonly reaches?: readonly SiteEndpoint[]
  /**
   * How it is served as last applied, its small members (document root, PHP on or off, PHP version and settings,
   * cache). Its redirects and headers are kept beside it (`SiteLayout.servingRules`, {@link recordedServedSpec}):
   * hundreds of rules would outgrow the room held back to write this file on a full disk. Absent from older files and
   * for sites served as always.
   */
  readonly serving?: SiteServing
  readonly updatedAt: string
}

/** The members of `serving` the record keeps (see {@link SiteState.serving}). */
function recordedServing(serving: SiteServing | undefined): { serving?: SiteServing } {
  if (!serving) return {}
  const { redirects: _redirects, headers: _headers, ...small } = serving
  return Object.keys(small).length > 0 ? { serving: small } : {}
}

/** The record of `site` in state `state`. */
export function siteState(
  site: SiteSpec,
  state: SiteState['state'],
  unixUser: string | null,
  app: SiteState['app'],
  certificate: string | null,
): SiteState {
  return {
    siteId: site.id,
    handle: site.handle,
    domain: site.domain,
    type: site.type,
    customerId: site.customerId,
    diskMB: site.diskMB,
    cpuPercent: site.cpuPercent ?? null,
    memoryMB: site.memoryMB ?? null,
    processes: site.processes ?? null,
    state,
    unixUser,
    app,
    certificate,
    ...recordedServing(site.serving),
    updatedAt: new Date().toISOString(),
  }
}

/** The contents of `state.json`. */
export function stateFile(state: SiteState): string {
  return `${JSON.stringify(state, null, 2)}\n`
}

/**
 * The spec the runtime last applied, as `state.json` recorded it: enough to serve the site again (its application's
 * settings are not kept, and not needed once it is installed).
 */
export function recordedSpec(state: SiteState): SiteSpec {
  return {
    id: state.siteId,
    handle: state.handle,
    domain: state.domain,
    type: state.type,
    customerId: state.customerId,
    diskMB: state.diskMB,
    cpuPercent: state.cpuPercent ?? null,
    memoryMB: state.memoryMB ?? null,
    processes: state.processes ?? null,
    // Checked again, like the rest, where the record names paths (`siteLayout` runs `checkSiteSpec`).
    ...(state.serving ? { serving: state.serving } : {}),
  }
}

/** A site's redirects and headers, as the runtime keeps them beside its `state.json` (`SiteLayout.servingRules`). */
export type ServingRules = Pick<SiteServing, 'redirects' | 'headers'>

/** The rules `serving` carries, or null when it carries none (no file is kept then). */
export function servingRulesOf(serving: SiteServing | undefined): ServingRules | null {
  const rules = {
    ...(serving?.redirects?.length ? { redirects: serving.redirects } : {}),
    ...(serving?.headers?.length ? { headers: serving.headers } : {}),
  }
  return Object.keys(rules).length > 0 ? rules : null
}

/**
 * The spec the runtime last applied, whole: {@link recordedSpec} with the redirects and headers kept beside the
 * record (`SiteLayout.servingRules`), for a block rewritten without the panel (a certificate installed, a site's disk
 * mounted again at start). No rules when their file is missing or not one the runtime wrote; they are checked again
 * with the rest (`checkSiteSpec`, in `siteLayout`).
 */
export async function recordedServedSpec(layout: RuntimeLayout, state: SiteState): Promise<SiteSpec> {
  const spec = recordedSpec(state)
  let rules: ServingRules | null = null
  try {
    const path = siteLayout(layout, spec).servingRules
    const value = JSON.parse(await readFile(path, 'utf8')) as ServingRules | null
    if (value && typeof value === 'object' && !Array.isArray(value)) rules = value
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error
  }
  if (!rules) return spec
  return { ...spec, serving: { ...spec.serving, ...rules } }
}

/** `state.json` read back (older files, without the later fields, as null), or null when it is not one it wrote. */
export function parseStateFile(text: string): SiteState | null {
  try {
    const value = JSON.parse(text) as Partial<SiteState> | null
    if (value?.state !== 'active' && value?.state !== 'suspended') return null
    return { unixUser: null, app: null, certificate: null, ...value } as SiteState
  } catch {
    return null
  }
}

/** The state at `path`, or null when there is none. */
export async function readSiteState(path: string): Promise<SiteState | null> {
  try {
    return parseStateFile(await readFile(path, 'utf8'))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}
