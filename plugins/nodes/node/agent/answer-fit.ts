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

/** `result` when it fits in what the panel takes; otherwise the failure saying how large it was. */
export function fittingAnswer(
  result: AgentResult,
  operation: string,
  limit = agentAnswerLimitBytes,
): AgentResult {
  const bytes = Buffer.byteLength(JSON.stringify(result))
  if (bytes <= limit) return result
  return failedAnswer(
    answerTooLargeCode,
    `The node's answer to ${operation} (${(bytes / 1024 / 1024).toFixed(1)} MiB) is larger than the panel takes from an agent (${limit / 1024 / 1024} MiB); it was not sent.`,
  )
}
