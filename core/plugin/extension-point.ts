// Extension points: small additive registries a plugin owns and other plugins fill before it starts.

import { PluginResolutionError } from './plugin-resolution-error.ts'
/** Names a registry; the instance lives in each panel, so two panels in one process never share entries. */
export interface ExtensionPointRef<T> {
  /** `<owner>.<name>`, e.g. `sites.siteTypes`. */
  readonly id: string
  /** The plugin that owns the point; an extender must list it in `requires`. */
  readonly owner: string
  readonly description: string
  /** The key an entry is known by; a second entry with the same key is refused. */
  keyOf(entry: T): string
  /** Phantom member carrying the entry type; never set. */
  readonly __entry?: T
}

/** The panel's instance of an extension point. */
export interface ExtensionRegistry<T> {
  /** Adds an entry; throws when the key is taken or the panel has started (the owner reads a fixed list). */
  add(entry: T): void
  list(): readonly T[]
  get(key: string): T | undefined
}

/**
 * Declares an extension point in the owner's contract file.
 * @example export const siteTypes = defineExtensionPoint<SiteType>({ id: 'sites.siteTypes', owner: 'sites', keyOf: (t) => t.name, description: '…' })
 */
export function defineExtensionPoint<T>(ref: Omit<ExtensionPointRef<T>, '__entry'>): ExtensionPointRef<T> {
  if (!ref.id.startsWith(`${ref.owner}.`))
    throw new Error(`Extension point "${ref.id}" must be named "${ref.owner}.<name>"`)
  return ref
}

/** The kernel's side: creates a registry that remembers who added what, and can be sealed. */
export function createExtensionRegistry<T>(ref: ExtensionPointRef<T>) {
  const entries = new Map<string, { entry: T; addedBy: string }>()
  let sealed = false
  return {
    registry(addedBy: string): ExtensionRegistry<T> {
      return {
        add(entry) {
          if (sealed)
            throw new PluginResolutionError(`${ref.id}: "${addedBy}" added an entry after the panel started`)
          const key = ref.keyOf(entry)
          const existing = entries.get(key)
          if (existing) {
            throw new PluginResolutionError(
              `${ref.id}: "${key}" is added by both "${existing.addedBy}" and "${addedBy}"`,
            )
          }
          entries.set(key, { entry, addedBy })
        },
        list: () => [...entries.values()].map((item) => item.entry),
        get: (key) => entries.get(key)?.entry,
      }
    },
    seal() {
      sealed = true
    },
  }
}

/** The registry of a point whose owner is not mounted, for a plugin that only enhances it: it keeps nothing. */
export function inertExtensionRegistry<T>(): ExtensionRegistry<T> {
  return { add() {}, list: () => [], get: () => undefined }
}
