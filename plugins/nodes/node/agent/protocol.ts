// What the panel and a node agent say to each other, as the agent reads and writes it: the agent dials the panel
// (outbound only, over the panel's own HTTPS), asks for work with its agent token, and answers each command. The
// panel's side checks the same shapes with its schemas (plugins/nodes/remote/protocol.ts).

import type { NodeCapabilities } from '../contract.ts'

/** What the agent says of itself when it asks for work. */
export interface AgentHello {
  /** Picked anew by each run of the agent: commands sent to an earlier run are sent again. */
  readonly session: string
  readonly version: string
  readonly capabilities: NodeCapabilities
  /** The commands the agent holds and has not answered yet (one sent to this run it does not list is sent again). */
  readonly holding?: readonly string[]
  /** How long to wait for work before answering none (default 25 s). */
  readonly waitSeconds?: number
}

/**
 * A node module the installation's plugins declare: the agent loads the file at `source` (a path below the panel's
 * code root, the same in the agent's install) and offers what it makes.
 */
export interface AgentModule {
  readonly name: string
  /** `plugins/files/node/index.ts`: relative to the code root, no `..`. */
  readonly source: string
}

/**
 * What an agent stopping (SIGTERM, SIGINT) says last: its run `session` is over, so the panel shows the node
 * disconnected at once rather than after a minute of silence.
 */
export interface AgentLeaving {
  readonly session: string
}

/** One command: an operation on a subject, under a job's attempt. */
export interface AgentCommand {
  readonly id: string
  /** A node operation's name (operations.ts). */
  readonly operation: string
  readonly jobId: string
  readonly attempt: number
  /** What the command is about: the agent runs the commands on one subject one after another. */
  readonly subject: string
  /** What the operation needs; may hold secrets (a key, a database password): never logged. */
  readonly payload: unknown
}

/** The answer to a poll: the node's id, the modules it runs, and the commands to carry out now. */
export interface AgentWork {
  readonly nodeId: string
  readonly modules: readonly AgentModule[]
  readonly commands: readonly AgentCommand[]
}

/** The outcome of a command. */
export interface AgentResult {
  readonly ok: boolean
  /** What the operation resolved with (a site's report, a service's answer), when it resolves with something. */
  readonly result?: unknown
  readonly error?: {
    readonly message: string
    readonly code?: string
    /** What a node service said of its refusal besides the code. */
    readonly details?: Readonly<Record<string, unknown>>
    /** Whether repeating the command cannot help: the job fails at once. */
    readonly final?: boolean
    /** Whether it was a service's refusal (a `NodeRefusal`, answered to the caller as such), not a failure. */
    readonly refusal?: boolean
  }
}

/** How long without a poll before the panel calls an agent disconnected. */
export const agentSilenceMs = 60_000

/**
 * The largest answer to a command the panel takes from an agent (413 beyond): a file's part of 4 MiB in base64, and
 * room for the rest. Node services bound what they answer to fit; the agent fails a command whose answer would not.
 */
export const agentAnswerLimitBytes = 8 * 1024 * 1024
