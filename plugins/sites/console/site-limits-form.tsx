// Platform staff's limits for one site, over its plan's and its node's defaults (`PATCH /sites/{id}` `limits`): CPU,
// memory and processes, each shown with what applies now and where that comes from. An empty field gives the site's
// own back (null): its plan's, else its node's default, applies again.

import { useQuery } from '@tanstack/react-query'
import {
  changedFields,
  FormFooter,
  formatCount,
  numberOf,
  SavedNotice,
  TextField,
  unchanged,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']
type OwnLimits = { cpuPercent: number | null; memoryMB: number | null; processes: number | null }

const fields = [
  { name: 'cpuPercent', label: 'CPU (% of one core)', min: 1 },
  { name: 'memoryMB', label: 'Memory (MB)', min: 16 },
  { name: 'processes', label: 'Processes', min: 1 },
] as const

const sourceText = { site: 'set for this site', plan: 'its plan', node: 'its node’s default', none: 'none' }

export function SiteLimitsForm({ site }: { site: Site }) {
  const limits = useQuery(api.query('/api/v1/sites/{id}/limits', { params: { path: { id: site.id } } }))
  const form = useEditForm(async (data) => {
    const own = site.limits
    const body = changedFields<{ limits: OwnLimits }>(
      { limits: { cpuPercent: own.cpuPercent, memoryMB: own.memoryMB, processes: own.processes } },
      {
        limits: {
          cpuPercent: numberOf(data, 'limits.cpuPercent') ?? null,
          memoryMB: numberOf(data, 'limits.memoryMB') ?? null,
          processes: numberOf(data, 'limits.processes') ?? null,
        },
      },
    )
    if (Object.keys(body).length === 0) return unchanged
    const saved = await unwrap(api.PATCH('/api/v1/sites/{id}', { params: { path: { id: site.id } }, body }))
    await limits.refetch()
    return saved
  })
  const applied = (name: (typeof fields)[number]['name']) => {
    const limit = limits.data?.[name]
    if (!limit) return undefined
    const value = limit.value === null ? 'unlimited' : formatCount(limit.value)
    return `Now ${value} (${sourceText[limit.source]}). Empty: its plan’s, else its node’s default.`
  }
  return (
    <form onSubmit={form.submit} noValidate data-testid="site-limits-form">
      {fields.map((field) => (
        <TextField
          key={field.name}
          form={form}
          name={`limits.${field.name}`}
          label={field.label}
          type="number"
          min={field.min}
          step={1}
          inputMode="numeric"
          placeholder="Plan or node default"
          defaultValue={site.limits[field.name] ?? ''}
          hint={applied(field.name)}
        />
      ))}
      <SavedNotice form={form} />
      <FormFooter form={form}>Save limits</FormFooter>
    </form>
  )
}
