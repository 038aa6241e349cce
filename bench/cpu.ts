// CPU time of the processes a bench run loads, read from /proc: the servers' own, and on PostgreSQL that of the
// server backends connected to the bench database (the machine's other databases, and PostgreSQL's background
// processes, are not counted).

import type postgres from 'postgres'

/** Clock ticks a second (`getconf CLK_TCK`; 100 on Linux). */
const clockTicks = 100

/** CPU time (user + system, every thread) of process `pid` in µs, or 0 once it is gone. */
export async function processCpuMicros(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`)
    .text()
    .catch(() => '')
  if (stat === '') return 0
  // Fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 1_000_000) / clockTicks
}

/** CPU of several processes, by pid. */
async function cpuOf(pids: readonly number[]): Promise<Map<number, number>> {
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await processCpuMicros(pid)] as const)))
}

/** Where the CPU of a run is counted: the servers' processes, and optionally the backends of one database. */
export interface CpuScope {
  /** The server processes under load (panels, ceilings). */
  readonly pids: readonly number[]
  /** A connection to the PostgreSQL server (any database on it) and the bench database's name; none on SQLite. */
  readonly postgres?: { readonly sql: postgres.Sql; readonly database: string }
}

/** CPU used during a run, µs: by the server processes, and by the database's backends. */
export interface CpuUsed {
  readonly servers: number
  readonly database: number
}

/** The backends connected to `database` now. */
async function backendsOf(scope: CpuScope): Promise<number[]> {
  if (!scope.postgres) return []
  const rows = await scope.postgres.sql<{ pid: number }[]>`select pid from pg_stat_activity
    where datname = ${scope.postgres.database} and pid <> pg_backend_pid()`
  return rows.map((row) => Number(row.pid))
}

/**
 * Runs `work` and answers the CPU the scope's processes used meanwhile. Backends that connect during the run count
 * from zero (their start is part of the run); one that ends during it loses what it used (rare: pools keep theirs).
 */
export async function measureCpu<T>(
  scope: CpuScope,
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CpuUsed }> {
  const backendsBefore = await cpuOf(await backendsOf(scope))
  const serversBefore = await cpuOf(scope.pids)
  const result = await work()
  const serversAfter = await cpuOf(scope.pids)
  const backendsAfter = await cpuOf(await backendsOf(scope))
  const delta = (before: Map<number, number>, after: Map<number, number>) => {
    let sum = 0
    for (const [pid, micros] of after) sum += micros - (before.get(pid) ?? 0)
    return sum
  }
  return {
    result,
    cpu: { servers: delta(serversBefore, serversAfter), database: delta(backendsBefore, backendsAfter) },
  }
}
