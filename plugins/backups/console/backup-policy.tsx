// A site's backup policy: its schedule and what retention keeps, each saying where it comes from (set for this site
// by staff, or its plan's), and the target its backups go to. Staff who manage policies override any of them for the
// site (an empty field takes the plan's) or reset the site to its plan's.

import { useQuery } from '@tanstack/react-query'
import {
  ConfirmAction,
  ErrorNotice,
  Facts,
  FormFooter,
  Loading,
  numberOf,
  SavedNotice,
  Section,
  SelectField,
  TextField,
  textOf,
  unwrap,
  useEditForm,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Policy = Schemas['SiteBackupPolicy']
type Body = Schemas['SiteBackupPolicyBody']

const scheduleText = { off: 'Off', daily: 'Daily', weekly: 'Weekly' } as const
const sourceText = {
  site: 'set for this site',
  plan: 'from its plan',
  default: 'the panel’s default',
} as const

const from = (source: keyof typeof sourceText | undefined) =>
  source ? <span className="muted"> ({sourceText[source] ?? source})</span> : null

/** The site's policy as it applies, and the staff's form when the caller may change it. */
export function BackupPolicySection({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const policy = useQuery(api.query('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
  if (policy.isPending) return <Loading />
  if (policy.isError) return <ErrorNotice error={policy.error} />
  const current = policy.data
  return (
    <Section title="Policy">
      <Facts
        items={[
          [
            'Schedule',
            <span key="schedule">
              {scheduleText[current.schedule]}
              {from(current.sources?.schedule)}
            </span>,
          ],
          [
            'Keeps daily',
            <span key="daily">
              {current.keepDaily}
              {from(current.sources?.keepDaily)}
            </span>,
          ],
          [
            'Keeps weekly',
            <span key="weekly">
              {current.keepWeekly}
              {from(current.sources?.keepWeekly)}
            </span>,
          ],
          [
            'Keeps monthly',
            <span key="monthly">
              {current.keepMonthly}
              {from(current.sources?.keepMonthly)}
            </span>,
          ],
          ['Target', <TargetName key="target" targetId={current.targetId} />],
        ]}
      />
      {can('backup-policy:manage') ? <PolicyForm siteId={siteId} current={current} /> : null}
    </Section>
  )
}

/** A target by name for those who may read targets; else only whether it is the default. */
function TargetName({ targetId }: { targetId: string | null }) {
  const { can } = useSession()
  const targets = useQuery({ ...api.all('/api/v1/backup-targets'), enabled: can('backup-target:read') })
  if (targetId === null) return <>the default target</>
  const target = targets.data?.find((item) => item.id === targetId)
  return <>{target ? `${target.name} (${target.kind})` : <code>{targetId}</code>}</>
}

/** A number field's value for the body: empty takes the plan's (null). */
const keepOf = (data: FormData, name: string) => numberOf(data, name) ?? null

function PolicyForm({ siteId, current }: { siteId: string; current: Policy }) {
  const targets = useQuery(api.all('/api/v1/backup-targets'))
  const own = (field: 'schedule' | 'keepDaily' | 'keepWeekly' | 'keepMonthly') =>
    current.sources?.[field] === 'site' ? String(current[field]) : ''
  const form = useEditForm((data) => {
    const schedule = textOf(data, 'schedule')
    const body = {
      schedule: (schedule ?? null) as Body['schedule'],
      keepDaily: keepOf(data, 'keepDaily'),
      keepWeekly: keepOf(data, 'keepWeekly'),
      keepMonthly: keepOf(data, 'keepMonthly'),
      targetId: textOf(data, 'targetId') ?? null,
    } as Body
    return unwrap(api.PUT('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } }, body }))
  })
  return (
    <>
      <h3>Set for this site</h3>
      <form key={JSON.stringify(current)} onSubmit={form.submit} noValidate data-testid="backup-policy-form">
        <SelectField
          form={form}
          name="schedule"
          label="Schedule"
          defaultValue={own('schedule')}
          options={[
            { value: '', label: 'Its plan’s' },
            { value: 'daily', label: 'Daily' },
            { value: 'weekly', label: 'Weekly' },
            { value: 'off', label: 'Off' },
          ]}
        />
        <TextField
          form={form}
          name="keepDaily"
          label="Keep daily"
          inputMode="numeric"
          defaultValue={own('keepDaily')}
          hint="Days whose last backup is kept; empty takes its plan’s."
        />
        <TextField
          form={form}
          name="keepWeekly"
          label="Keep weekly"
          inputMode="numeric"
          defaultValue={own('keepWeekly')}
          hint="Weeks whose last backup is kept; empty takes its plan’s."
        />
        <TextField
          form={form}
          name="keepMonthly"
          label="Keep monthly"
          inputMode="numeric"
          defaultValue={own('keepMonthly')}
          hint="Months whose last backup is kept; empty takes its plan’s."
        />
        <SelectField
          form={form}
          name="targetId"
          label="Target"
          defaultValue={current.sources?.target === 'site' ? (current.targetId ?? '') : ''}
          options={[
            { value: '', label: 'The default target' },
            ...(targets.data ?? []).map((target) => ({
              value: target.id,
              label: `${target.name} (${target.kind})`,
            })),
          ]}
          hint="Where its backups go from the next one on; the backups taken stay where they are."
        />
        <SavedNotice form={form} />
        <FormFooter form={form}>Save policy</FormFooter>
      </form>
      <ConfirmAction
        confirmLabel="Confirm reset to its plan’s policy"
        run={() =>
          unwrap(api.DELETE('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
        }
      >
        Reset to its plan’s policy
      </ConfirmAction>
    </>
  )
}
