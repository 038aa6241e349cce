// A MariaDB dump narrowed to some of its tables, as a stream: the dump's header (its session settings), the
// sections of the listed tables and views (each `DROP TABLE`, `CREATE TABLE` and its rows, as mariadb-dump writes
// them), and its trailer; every other table's section, and the routines and events, left out. A push to live of a
// staging site's chosen tables loads this into the live site's database: the tables listed are replaced whole, the
// others are left as they are.

/** A table or view name a selection may list: what WordPress and most applications name theirs. */
export const tableNamePattern = /^[A-Za-z0-9_$]{1,64}$/

const newline = 0x0a
const decoder = new TextDecoder()

/** What a line of the dump starts: a table's or view's section (its name), the routines (`false`), the trailer. */
function sectionOf(line: string): string | false | 'trailer' | undefined {
  if (line.startsWith('/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE')) return 'trailer'
  if (!line.startsWith('-- ')) return undefined
  const table =
    /^-- (?:Table structure for table|Dumping data for table|Temporary table structure for view|Final view structure for view) `(.*)`\s*$/.exec(
      line,
    )
  if (table) return (table[1] ?? '').replaceAll('``', '`')
  if (/^-- Dumping (?:routines|events) for database /.test(line)) return false
  return undefined
}

/**
 * The dump `source` with only the sections of `tables` kept; the names of every table section seen are added to
 * `seen` as the stream is read (a first pass with nothing kept finds which tables a dump holds).
 */
export function tablesOfDump(
  source: ReadableStream<Uint8Array>,
  tables: ReadonlySet<string>,
  seen: Set<string>,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  /** The section the lines belong to: `true` the header or trailer (kept), a name, or `false` (left out). */
  let section: string | boolean = true
  let done = false

  function keep(name: string | boolean): boolean {
    return name === true || (typeof name === 'string' && tables.has(name))
  }

  /** Classifies a whole line (its first bytes suffice) and answers whether it is kept. */
  function lineKept(line: Uint8Array): boolean {
    const head = decoder.decode(line.subarray(0, Math.min(line.length, 400)))
    const next = sectionOf(head)
    if (next === 'trailer') section = true
    else if (next !== undefined) {
      section = next
      if (typeof next === 'string' && head.startsWith('-- Table structure')) seen.add(next)
    }
    return keep(section)
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (done) {
          controller.close()
          return
        }
        const read = await reader.read()
        const out: Uint8Array[] = []
        if (read.done) {
          done = true
          if (pendingBytes > 0) {
            const line = concat(pending, pendingBytes)
            if (lineKept(line)) out.push(line)
          }
        } else {
          let chunk = read.value
          for (;;) {
            const at = chunk.indexOf(newline)
            if (at < 0) {
              pending.push(chunk)
              pendingBytes += chunk.length
              break
            }
            pending.push(chunk.subarray(0, at + 1))
            pendingBytes += at + 1
            const line = concat(pending, pendingBytes)
            pending = []
            pendingBytes = 0
            if (lineKept(line)) out.push(line)
            chunk = chunk.subarray(at + 1)
          }
        }
        if (out.length > 0) {
          controller.enqueue(
            concat(
              out,
              out.reduce((sum, part) => sum + part.length, 0),
            ),
          )
          return
        }
      }
    },
    async cancel(reason) {
      await reader.cancel(reason)
    },
  })
}

function concat(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0].slice()
  const whole = new Uint8Array(bytes)
  let at = 0
  for (const part of parts) {
    whole.set(part, at)
    at += part.length
  }
  return whole
}

/** Drains `stream` (a first pass), for the names it adds to its `seen`. */
export async function drain(stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader()
  for (;;) if ((await reader.read()).done) return
}
