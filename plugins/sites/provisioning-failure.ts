// Why a site's provisioning attempt failed, in the words the site shows (`error: { code, message, jobId }`), and
// whether another attempt could help. A refusal (no database server has room, the node refuses the site) fails the
// site at once, so its owner reads why in seconds rather than after five attempts over minutes; a node away for a
// while is tried again.

import { JobAttemptFailure, JobFailure, Problem } from '../../core/index.ts'
import { NodeRefusal } from '../nodes/contract.ts'

/** A failed attempt as the site keeps it. */
export interface ProvisioningFailure {
  readonly code: string
  readonly message: string
  /** Whether trying again cannot help: the site becomes `failed` now. */
  readonly final: boolean
}

/** The step of provisioning that threw, for errors that carry no code of their own. */
export type ProvisioningStep = 'application' | 'node'

const uncodedOf: Record<ProvisioningStep, string> = {
  // What the site's type prepares (WordPress's database) failed without saying how.
  application: 'application_error',
  // The node failed the operation without saying how (a program that could not run).
  node: 'node_error',
}

/** The stable code an error carries (a Problem's, a node's, a `JobAttemptFailure`'s), or null. */
function codeOf(error: Error): string | null {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : null
}

/** What `error`, thrown at `step`, says as the site's error. */
export function provisioningFailureOf(error: unknown, step: ProvisioningStep): ProvisioningFailure {
  if (!(error instanceof Error)) return { code: uncodedOf[step], message: String(error), final: false }
  // A Problem is a refusal of the panel's (no database server has room); the node's refusals are final too.
  const final = error instanceof JobFailure || error instanceof Problem || error instanceof NodeRefusal
  return { code: codeOf(error) ?? uncodedOf[step], message: error.message, final }
}

/** The error a failed attempt ends with: the job records its code, and fails at once when it is final. */
export function attemptError(failure: ProvisioningFailure): Error {
  if (failure.final) return new JobFailure(failure.message, failure.code)
  return new JobAttemptFailure(failure.message, failure.code)
}
