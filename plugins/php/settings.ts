// The PHP settings a site may set: each with its kind, its range, its default (what a site gets without its own)
// and the plan cap that may lower its maximum; checked with a code per failure at `body.settings.<name>`, and
// written for the node as `php.ini` strings.

import { FieldErrors, type PlanSettingDefinition, type ProblemRef, t } from '../../core/index.ts'
import { phpProblems } from './problems.ts'

/** A setting's value as the API reads and answers it: a size string, a whole number, or a boolean. */
export type PhpSettingValue = string | number | boolean

/** The caps a plan may set on its sites' PHP settings (`phpSettings` of a plan). */
export interface PhpPlanCaps {
  readonly maxMemoryLimitMB?: number
  readonly maxUploadMB?: number
  readonly maxExecutionTime?: number
  readonly maxInputVars?: number
}

/** One setting a site may set. */
export interface PhpSettingRule {
  readonly kind: 'size' | 'integer' | 'boolean'
  /** What the site runs with unless it sets its own (the node's pool default, else Debian's php.ini). */
  readonly default: PhpSettingValue
  /** The range, in MB for sizes. */
  readonly minimum?: number
  readonly maximum?: number
  /** A value allowed besides the range (`max_input_time` -1). */
  readonly also?: number
  /** The plan cap lowering `maximum`. */
  readonly cap?: keyof PhpPlanCaps
  readonly description: string
}

/** The allowlist, by `php.ini` name. */
export const phpSettingRules = {
  memory_limit: {
    kind: 'size',
    default: '128M',
    minimum: 16,
    maximum: 8192,
    cap: 'maxMemoryLimitMB',
    description: 'The most memory one PHP request may take (`256M`), 16M to 8G.',
  },
  upload_max_filesize: {
    kind: 'size',
    default: '64M',
    minimum: 1,
    maximum: 16384,
    cap: 'maxUploadMB',
    description:
      'The largest file one upload may carry (`128M`), 1M to 16G; at most `post_max_size`. nginx takes bodies as large as `post_max_size`.',
  },
  post_max_size: {
    kind: 'size',
    default: '64M',
    minimum: 1,
    maximum: 16384,
    cap: 'maxUploadMB',
    description: 'The largest request body PHP reads (`128M`), 1M to 16G; at least `upload_max_filesize`.',
  },
  max_execution_time: {
    kind: 'integer',
    default: 30,
    minimum: 1,
    maximum: 3600,
    cap: 'maxExecutionTime',
    description:
      'Seconds a PHP request may run, 1 to 3600 (nginx waits as long for its answer, and 10 s more).',
  },
  max_input_time: {
    kind: 'integer',
    default: 60,
    minimum: 1,
    maximum: 3600,
    also: -1,
    cap: 'maxExecutionTime',
    description:
      'Seconds PHP may spend reading a request’s input, 1 to 3600, or -1 (as `max_execution_time`).',
  },
  max_input_vars: {
    kind: 'integer',
    default: 1000,
    minimum: 100,
    maximum: 100000,
    cap: 'maxInputVars',
    description: 'Input variables one request may carry (GET, POST and cookies each), 100 to 100000.',
  },
  max_file_uploads: {
    kind: 'integer',
    default: 20,
    minimum: 1,
    maximum: 1000,
    description: 'Files one request may upload, 1 to 1000.',
  },
  display_errors: {
    kind: 'boolean',
    default: false,
    description:
      'Whether PHP’s errors are shown in the pages (never on a live site); they are logged either way.',
  },
} as const satisfies Record<string, PhpSettingRule>

export type PhpSettingName = keyof typeof phpSettingRules
export const phpSettingNames = Object.keys(phpSettingRules) as PhpSettingName[]

/** A site's settings by name (its own, or the effective ones). */
export type PhpSettings = Partial<Record<PhpSettingName, PhpSettingValue>>

const rule = (name: PhpSettingName): PhpSettingRule => phpSettingRules[name]
const sizePattern = /^([1-9][0-9]{0,6})([KMG])$/i
const unitMB = { K: 1 / 1024, M: 1, G: 1024 } as const

/** A size in MB (`256M` → 256, `1G` → 1024, `512K` → 0.5), or null when it is not one. */
export function sizeMB(value: string): number | null {
  const match = sizePattern.exec(value)
  if (!match) return null
  return Number(match[1]) * unitMB[(match[2] ?? 'M').toUpperCase() as keyof typeof unitMB]
}

/** Every setting's default. */
export const phpDefaults: Readonly<Record<PhpSettingName, PhpSettingValue>> = Object.fromEntries(
  phpSettingNames.map((name) => [name, rule(name).default]),
) as Record<PhpSettingName, PhpSettingValue>

/** The settings' maxima as the caps lower them: by name, in the setting's unit (MB for sizes), with the cap. */
export function allowedMaxima(
  caps: PhpPlanCaps,
): Record<PhpSettingName, { maximum: number | null; cap: string | null }> {
  return Object.fromEntries(
    phpSettingNames.map((name) => {
      const { maximum, cap } = rule(name)
      const capped = cap ? caps[cap] : undefined
      if (maximum === undefined) return [name, { maximum: null, cap: null }]
      if (capped !== undefined && capped < maximum)
        return [name, { maximum: capped, cap: `phpSettings.${cap}` }]
      return [name, { maximum, cap: null }]
    }),
  ) as Record<PhpSettingName, { maximum: number | null; cap: string | null }>
}

/** A problem at `body.settings.<name>`, with extensions (the range, the cap). */
function refuse(errors: FieldErrors, ref: ProblemRef, name: string, message: string): void {
  errors.add(ref, `body.settings.${name}`, message)
}

/**
 * Checks `given` (the PATCH's `settings`, a member null: back to the default) against the allowlist's ranges and
 * `caps`, and answers the site's own settings after it (`own` with `given` laid over). Throws every refusal at once.
 */
export function checkedSettings(
  own: PhpSettings,
  given: Record<string, unknown>,
  caps: PhpPlanCaps,
): PhpSettings {
  const errors = new FieldErrors()
  const maxima = allowedMaxima(caps)
  const next: Record<string, PhpSettingValue> = { ...own }
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(phpSettingRules, name)) continue // the body's schema refuses unknown names first
    const key = name as PhpSettingName
    const { kind, minimum, also } = rule(key)
    if (value === null) {
      delete next[key]
      continue
    }
    const { maximum, cap } = maxima[key]
    if (kind === 'boolean') {
      next[key] = value as boolean
      continue
    }
    const amount = kind === 'size' ? sizeMB(String(value)) : (value as number)
    if (amount === null) {
      refuse(errors, phpProblems.invalid_php_size, name, `${name} is not a size like 256M.`)
      continue
    }
    const unit = kind === 'size' ? 'M' : ''
    if (
      amount !== also &&
      ((minimum !== undefined && amount < minimum) || (maximum !== null && cap === null && amount > maximum))
    ) {
      refuse(
        errors,
        phpProblems.php_setting_out_of_range,
        name,
        `${name} takes ${minimum}${unit} to ${maximum}${unit}${also !== undefined ? ` or ${also}` : ''}.`,
      )
      continue
    }
    if (maximum !== null && cap !== null && amount > maximum) {
      refuse(
        errors,
        phpProblems.php_setting_over_plan,
        name,
        `${name} is over the plan’s ${cap} (${maximum}${unit}).`,
      )
      continue
    }
    next[key] = kind === 'size' ? String(value).toUpperCase() : (value as number)
  }
  const effective = { ...phpDefaults, ...next }
  const upload = sizeMB(String(effective.upload_max_filesize))
  const post = sizeMB(String(effective.post_max_size))
  if (!errors.hasAny() && upload !== null && post !== null && post < upload)
    refuse(
      errors,
      phpProblems.post_max_size_below_upload,
      'post_max_size',
      `post_max_size (${effective.post_max_size}) is below upload_max_filesize (${effective.upload_max_filesize}).`,
    )
  if (errors.hasAny()) throw errors.toProblem()
  return next as PhpSettings
}

/**
 * The settings a site runs with under `caps`: its own over the defaults, and every setting a cap applies to held at
 * the cap or below, also when the site set none (its code could otherwise raise a default with `ini_set`, as
 * `memory_limit` and `max_execution_time` allow) or set more before its plan lowered the cap. What the node is told
 * (as `php_admin_value`, which the site's code cannot change) and what `GET /sites/{id}/php` answers.
 */
export function heldSettings(
  own: PhpSettings,
  caps: PhpPlanCaps,
): { sent: PhpSettings; effective: PhpSettings } {
  const sent: PhpSettings = { ...own }
  const effective: PhpSettings = { ...phpDefaults, ...own }
  for (const name of phpSettingNames) {
    const { kind, cap } = rule(name)
    const limit = cap ? caps[cap] : undefined
    if (limit === undefined) continue
    const value = effective[name]
    const amount = kind === 'size' ? sizeMB(String(value)) : Number(value)
    // `max_input_time` -1 reads `max_execution_time`, which is held itself.
    const held =
      amount !== null && amount !== -1 && amount > limit ? (kind === 'size' ? `${limit}M` : limit) : value
    sent[name] = held
    effective[name] = held
  }
  return { sent, effective }
}

/** The settings as the node takes them: `php.ini` strings (`on`/`off` for booleans). */
export function nodeSettings(own: PhpSettings): Record<string, string> {
  return Object.fromEntries(
    Object.entries(own).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value),
    ]),
  )
}

/** The `settings` member of the PATCH body: each setting optional, null to take its default again. */
export const PhpSettingsBody = t.Object(
  Object.fromEntries(
    phpSettingNames.map((name) => {
      const { kind, description } = rule(name)
      const type =
        kind === 'size'
          ? t.String({ maxLength: 16, description })
          : kind === 'integer'
            ? t.Integer({ description })
            : t.Boolean({ description })
      return [
        name,
        t.Optional(t.Union([type, t.Null()], { description: `${description} Null: the default.` })),
      ]
    }),
  ),
  {
    description:
      'Settings to change, by `php.ini` name; a setting left out stays as it is, null takes its default again. Other names are refused.',
  },
)

/** The settings as answered: every one, effective. */
export const PhpSettingsAnswer = t.Object(
  Object.fromEntries(
    phpSettingNames.map((name) => {
      const { kind, description } = rule(name)
      return [
        name,
        kind === 'size'
          ? t.String({ description })
          : kind === 'integer'
            ? t.Integer({ description })
            : t.Boolean({ description }),
      ]
    }),
  ),
  { description: 'Every setting the site may set, as it runs with it: its own, else the default.' },
)

/** The plan setting `phpSettings`: caps on what the plan's sites may set. */
export const phpPlanSetting: PlanSettingDefinition = {
  name: 'phpSettings',
  description:
    'Caps on the PHP settings the plan’s sites may set (`PATCH /sites/{id}/php`): `maxMemoryLimitMB` (`memory_limit`), `maxUploadMB` (`upload_max_filesize`, `post_max_size`), `maxExecutionTime` (`max_execution_time`, `max_input_time`, seconds), `maxInputVars` (`max_input_vars`). A cap left out: the setting’s own range. Several plans held at once allow what the most generous does.',
  schema: t.Object(
    {
      maxMemoryLimitMB: t.Optional(
        t.Integer({ minimum: 16, maximum: 8192, description: 'Highest `memory_limit`, in MB.' }),
      ),
      maxUploadMB: t.Optional(
        t.Integer({
          minimum: 1,
          maximum: 16384,
          description: 'Highest `upload_max_filesize` and `post_max_size`, in MB.',
        }),
      ),
      maxExecutionTime: t.Optional(
        t.Integer({
          minimum: 1,
          maximum: 3600,
          description: 'Highest `max_execution_time` and `max_input_time`, in seconds.',
        }),
      ),
      maxInputVars: t.Optional(
        t.Integer({ minimum: 100, maximum: 100000, description: 'Highest `max_input_vars`.' }),
      ),
    },
    { $id: 'PlanPhpSettings' },
  ),
  combine(values) {
    const caps: Record<string, number> = {}
    for (const key of ['maxMemoryLimitMB', 'maxUploadMB', 'maxExecutionTime', 'maxInputVars'] as const) {
      const set = values.map((value) => (value as PhpPlanCaps | null)?.[key])
      // A plan without the cap lets its sites go to the setting's own maximum.
      if (set.every((cap): cap is number => typeof cap === 'number')) caps[key] = Math.max(...set)
    }
    return caps
  },
}

/** Reads a combined `phpSettings` plan value. */
export function capsOf(value: unknown): PhpPlanCaps {
  const caps: Record<string, number> = {}
  if (value && typeof value === 'object')
    for (const [key, cap] of Object.entries(value)) if (typeof cap === 'number') caps[key] = cap
  return caps
}
