// An answer to a command the panel can take: one larger than the panel takes (`agentAnswerLimitBytes`), or one the
// panel refused as it is (413, 400), would be refused again each time it was sent, and the command, never answered,
// sent to the agent again and again. The agent answers instead that the command failed, saying why, once.

import { type AgentResult, agentAnswerLimitBytes } from './protocol.ts'

/** The code of a command whose answer is larger than the panel takes. */
export const answerTooLargeCode = 'agent_answer_too_large'
/** The code of a command whose answer the panel refused as it was. */
export const answerRefusedCode = 'agent_answer_refused'

/** The failure the agent answers instead: final, since carrying the command out again makes the same answer. */
export const failedAnswer = (code: string, message: string): AgentResult => ({
  ok: false,
  error: { message: message.slice(0, 4000), code, final: true },
})

/**
 * `value` with every string (keys too) made text the panel takes: it refuses NUL and lone surrogates in any request
 * (its store keeps neither), so a command's answer quoting a binary file, or a message cut between a surrogate pair,
 * failed `agent_answer_refused`. Each becomes U+FFFD, as a byte that is not UTF-8 already did.
 */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed().replaceAll('\0', '\uFFFD')
  if (Array.isArray(value)) return value.map(storable)
  // What JSON writes as something else (a Date as its ISO string) is taken as JSON writes it.
  if (value !== null && typeof value === 'object' && 'toJSON' in value && typeof value.toJSON === 'function')
    return storable(value.toJSON())
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key), storable(item)]))
  return value
}

/**
 * `result` as the panel takes it (see {@link storable}) when it fits in what the panel takes; otherwise the failure
 * saying how large it was.
 */
export function fittingAnswer(
  answer: AgentResult,
  operation: string,
  limit = agentAnswerLimitBytes,
): AgentResult {
  const result = storable(answer) as AgentResult
  const bytes = Buffer.byteLength(JSON.stringify(result))
  if (bytes <= limit) return result
  return failedAnswer(
    answerTooLargeCode,
    `The node's answer to ${operation} (${(bytes / 1024 / 1024).toFixed(1)} MiB) is larger than the panel takes from an agent (${limit / 1024 / 1024} MiB); it was not sent.`,
  )
}
