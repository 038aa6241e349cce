// The limit fields of the plan forms, named by their body path (`limits.sites`) so a 422 shows at its field.

import { type ApiForm, Fieldset, TextField } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { limitKeys, limitLabels } from './limits.ts'

export function LimitFields<R>({
  form,
  limits,
  php,
}: {
  form: ApiForm<R>
  limits?: Schemas['QuotaLimits']
  php?: Schemas['PlanPhp']
}) {
  return (
    <Fieldset legend="Limits">
      <p className="hint">
        A whole number of at least 0 each (per site: CPU and processes at least 1, memory at least 16 MB);
        leave a field empty for no limit. Disk is the customer’s total, shared by its sites; CPU (100 = one
        core), memory and processes are each site’s, and where empty each node’s defaults apply.
      </p>
      <div className="limits-grid">
        {limitKeys.map((key) => (
          <TextField
            key={key}
            form={form}
            name={`limits.${key}`}
            label={limitLabels[key]}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            placeholder="Unlimited"
            defaultValue={limits?.[key] ?? undefined}
          />
        ))}
      </div>
      <TextField
        form={form}
        name="php.allowFunctions"
        label="PHP functions allowed"
        autoComplete="off"
        placeholder="none"
        defaultValue={php?.allowFunctions.join(', ') ?? ''}
        hint="Functions a node disables by default that this plan’s sites may call (exec, proc_open, …), separated by commas."
      />
    </Fieldset>
  )
}
