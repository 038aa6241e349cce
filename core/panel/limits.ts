// The limits of an installation, with their defaults; all reported by capabilities.

/** Limits a deployment can set. */
export interface PanelLimits {
  /** Largest request body in bytes. Default 1 MiB (`BODY_LIMIT_BYTES`). */
  readonly bodyBytes: number
  /**
   * Largest file an upload may stream through (a site's file), in bytes. Default 10 GiB (`UPLOAD_LIMIT_BYTES`);
   * files stream, so this bounds disk, not memory.
   */
  readonly uploadBytes: number
  /** Token lifetime when none is asked for, in days. Default 90. */
  readonly tokenDefaultLifetimeDays: number
  /** Longest token lifetime, in days. Default 365. */
  readonly tokenMaxLifetimeDays: number
  /** How long an Idempotency-Key's answer is kept, in hours. Default 24. */
  readonly idempotencyWindowHours: number
}

/** The defaults of the API document and DESIGN.md. */
export const defaultLimits: PanelLimits = {
  bodyBytes: 1_048_576,
  uploadBytes: 10 * 1024 ** 3,
  tokenDefaultLifetimeDays: 90,
  tokenMaxLifetimeDays: 365,
  idempotencyWindowHours: 24,
}

/** Merges a deployment's limits over the defaults, refusing nonsense at start-up. */
export function resolveLimits(limits: Partial<PanelLimits> = {}): PanelLimits {
  const merged = { ...defaultLimits, ...limits }
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`Limit ${name} must be a positive whole number, not ${value}`)
  }
  if (merged.tokenDefaultLifetimeDays > merged.tokenMaxLifetimeDays) {
    throw new Error('Limit tokenDefaultLifetimeDays cannot exceed tokenMaxLifetimeDays')
  }
  return merged
}
