// Notices among the stores of one process: how SQLite stores tell each other (and themselves) of new work. Two
// stores opened on the same file in one process (two test panels standing in for two instances) hear each other.

/** Listeners by channel, of every store open on one database (a file, or one in-memory store). */
type Channels = Map<string, Set<() => void>>

/** By store key: the file, or one in-memory store. */
const stores = new Map<string, Channels>()

/** The notices of the stores open on one database in this process. */
export interface LocalNotifications {
  /** Calls every listener of `channel` (a listener that throws does not keep the others from hearing). */
  deliver(channel: string): void
  /** Adds a listener; returns how to remove it. */
  listen(channel: string, listener: () => void): () => void
}

/** The notices of database `key` (a file's absolute path; a key of its own for an in-memory store). */
export function localNotifications(key: string): LocalNotifications {
  const channelsOf = (): Channels => {
    let channels = stores.get(key)
    if (!channels) {
      channels = new Map()
      stores.set(key, channels)
    }
    return channels
  }
  return {
    deliver(channel) {
      for (const listener of [...(stores.get(key)?.get(channel) ?? [])]) {
        try {
          listener()
        } catch {
          // A wake-up that failed is made good by the listener's own polling.
        }
      }
    },
    listen(channel, listener) {
      const channels = channelsOf()
      let listeners = channels.get(channel)
      if (!listeners) {
        listeners = new Set()
        channels.set(channel, listeners)
      }
      // Its own function per call, so one listener added twice is removed once per stop.
      const entry = () => listener()
      listeners.add(entry)
      return () => {
        if (!listeners.delete(entry) || listeners.size > 0) return
        if (channels.get(channel) === listeners) channels.delete(channel)
        if (channels.size === 0 && stores.get(key) === channels) stores.delete(key)
      }
    },
  }
}
