// Settings plans carry beside their limits, declared by the plugin that applies them (which PHP functions a plan's
// sites may call): the billing plugin keeps them on its plans, the kernel combines a customer's and hands them out.

import type { TSchema } from '@sinclair/typebox'

/** A plan's settings by name, as the declaring plugins' schemas describe them; an absent member is not set. */
export type PlanSettings = Readonly<Record<string, unknown>>

/** A setting plans may carry, declared by the plugin that applies it. */
export interface PlanSettingDefinition {
  /** camelCase, unique in the panel: `php`. A member of plans (`plan.php`) beside `limits`. */
  readonly name: string
  /** What it does, for the plans' schema. */
  readonly description: string
  /** Its value's schema (an object, so it can grow). */
  readonly schema: TSchema
  /** The setting of several plans held at once (a customer's live subscriptions), from their values (at least one). */
  combine(values: readonly unknown[]): unknown
}

/** The settings of several plans held at once: each setting combined from those that set it. */
export function combineSettings(
  settings: readonly PlanSettingDefinition[],
  list: readonly PlanSettings[],
): PlanSettings {
  const combined: Record<string, unknown> = {}
  for (const setting of settings) {
    const values = list
      .map((item) => item[setting.name])
      .filter((value) => value !== undefined && value !== null)
    if (values.length > 0) combined[setting.name] = setting.combine(values)
  }
  return combined
}
