// How much more a site may write before its disk quota: measured once (du, as root) when a series of writes starts,
// then counted as they write, so writes running side by side (two uploads) share one count and cannot both pass the
// quota; a site with no quota is held to the node's free space, less a reserve, so no site fills the node's disk.

import type { NodeSite } from '../../nodes/node/contract.ts'
import { FileRefusal } from './file-refusal.ts'

/** What the node keeps free whatever the sites' quotas: a site without one stops here. */
const reserveBytes = 1024 ** 3
/** A site's count is measured again after this long without a write. */
const idleMs = 30_000

interface Ledger {
  /** What the home took when the count started. */
  readonly baseline: number
  /** Bytes written since. */
  added: number
  /** Of those, what each upload under way wrote (given back when it is aborted). */
  readonly held: Map<string, number>
  touched: number
}

/** The free bytes of the filesystem holding `path`. */
async function freeBytes(site: NodeSite, signal: AbortSignal): Promise<number> {
  const result = await site.run(['df', '-B1', '--output=avail', site.home], {}, signal)
  return Number(result.stdout.trim().split('\n').at(-1)) || 0
}

/** The room of every site on a node. */
export function siteRooms() {
  const ledgers = new Map<string, Ledger>()

  async function ledgerOf(site: NodeSite, signal: AbortSignal): Promise<Ledger> {
    const now = Date.now()
    const known = ledgers.get(site.id)
    if (known && now - known.touched < idleMs) {
      known.touched = now
      return known
    }
    const ledger = {
      baseline: await site.usedBytes(signal),
      added: 0,
      held: new Map<string, number>(),
      touched: now,
    }
    ledgers.set(site.id, ledger)
    return ledger
  }

  /** The bytes the site may still write: to its quota, or (none) to the node's reserve. */
  async function allowance(site: NodeSite, signal: AbortSignal): Promise<number> {
    if (site.quotaBytes === null) return (await freeBytes(site, signal)) - reserveBytes
    const ledger = await ledgerOf(site, signal)
    return site.quotaBytes - ledger.baseline - ledger.added
  }

  return {
    allowance,
    /**
     * Takes `bytes` of the site's room for a write about to happen (held for `holder`, an upload, until it is put
     * in place or given back); refuses when there is none.
     */
    async take(site: NodeSite, bytes: number, signal: AbortSignal, holder?: string): Promise<void> {
      if (bytes <= 0) return
      const left = await allowance(site, signal)
      if (bytes > left) {
        const ledger = ledgers.get(site.id)
        throw new FileRefusal('disk_quota_exceeded', 'The site’s disk quota has no room for that', {
          ...(site.quotaBytes === null ? {} : { quotaBytes: site.quotaBytes }),
          ...(ledger && site.quotaBytes !== null ? { usedBytes: ledger.baseline + ledger.added } : {}),
          neededBytes: bytes,
        })
      }
      const ledger = ledgers.get(site.id)
      if (!ledger) return
      ledger.added += bytes
      if (holder) ledger.held.set(holder, (ledger.held.get(holder) ?? 0) + bytes)
    },
    /** Gives back what `holder` took (its bytes were removed: an upload aborted). */
    giveBack(site: NodeSite, holder: string): void {
      const ledger = ledgers.get(site.id)
      const held = ledger?.held.get(holder)
      if (!ledger || held === undefined) return
      ledger.added = Math.max(0, ledger.added - held)
      ledger.held.delete(holder)
    },
    /** `holder`'s bytes are in place now, and `freed` bytes (the file they replaced) are gone. */
    settle(site: NodeSite, holder: string, freed: number): void {
      const ledger = ledgers.get(site.id)
      if (!ledger) return
      ledger.held.delete(holder)
      ledger.added = Math.max(0, ledger.added - freed)
    },
    /** Forgets the count: the next write measures the home again (after a delete, say). */
    forget(site: NodeSite): void {
      ledgers.delete(site.id)
    },
  }
}

export type SiteRooms = ReturnType<typeof siteRooms>
