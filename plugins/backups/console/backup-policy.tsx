// A site's backup policy: its schedule and what retention keeps, each saying where it comes from (set for this site
// by staff, its plan's, or the panel's default), the target its backups go to and when the next is due. Staff who
// manage policies set the site's own (an empty field takes its plan's), pick its target, or reset it to its plan's.

import { useQuery } from '@tanstack/react-query'
import {
  ConfirmAction,
  ErrorNotice,
  Facts,
  FormFooter,
  formatTime,
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
type Body = Schemas['OwnBackupPolicyBody']
type Member = 'schedule' | 'keepDaily' | 'keepWeekly' | 'keepMonthly'

const scheduleText: Readonly<Record<string, string>> = { off: 'Off', daily: 'Daily', weekly: 'Weekly' }
const sourceText: Readonly<Record<string, string>> = {
  site: 'set for this site',
  plan: 'from its plan',
  default: 'the panel’s default',
}

/** A member's value with where it comes from. */
function Sourced({ policy, member }: { policy: Policy; member: Member }) {
  const { value, source } = policy[member]
  return (
    <span data-member={member}>
      {member === 'schedule' ? (scheduleText[value] ?? value) : value}{' '}
      <span className="muted">({sourceText[source] ?? source})</span>
    </span>
  )
}

/** The site's policy as it applies, and the staff's form when the caller may change it. */
export function BackupPolicySection({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const policy = useQuery(api.query('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
  if (policy.isPending) return <Loading />
  if (policy.isError) return <ErrorNotice error={policy.error} />
  const current = policy.data
  const target = current.target
  return (
    <Section title="Policy">
      <Facts
        items={[
          ['Schedule', <Sourced key="schedule" policy={current} member="schedule" />],
          ['Next due', current.nextDueAt ? formatTime(current.nextDueAt) : 'Never (the schedule is off)'],
          ['Keeps daily', <Sourced key="daily" policy={current} member="keepDaily" />],
          ['Keeps weekly', <Sourced key="weekly" policy={current} member="keepWeekly" />],
          ['Keeps monthly', <Sourced key="monthly" policy={current} member="keepMonthly" />],
          [
            'Target',
            target ? (
              <span key="target">
                {target.name} ({target.kind}){' '}
                <span className="muted">
                  ({target.source === 'site' ? 'set for this site' : 'the default target'})
                </span>
              </span>
            ) : (
              <strong key="target">None: no backup can be taken until staff add a default target.</strong>
            ),
          ],
        ]}
      />
      {can('backup-policy:manage') ? <PolicyForm siteId={siteId} current={current} /> : null}
    </Section>
  )
}

/** A keep field's value for the body: empty takes the plan's (null). */
const keepOf = (data: FormData, name: string) => numberOf(data, name) ?? null

function PolicyForm({ siteId, current }: { siteId: string; current: Policy }) {
  const { can } = useSession()
  const targets = useQuery({ ...api.all('/api/v1/backup-targets'), enabled: can('backup-target:read') })
  const own = current.own
  const ownText = (member: Member) => (own?.[member] == null ? '' : String(own[member]))
  const form = useEditForm((data) => {
    const body: Body = {
      schedule: (textOf(data, 'schedule') ?? null) as Body['schedule'],
      keepDaily: keepOf(data, 'keepDaily'),
      keepWeekly: keepOf(data, 'keepWeekly'),
      keepMonthly: keepOf(data, 'keepMonthly'),
      targetId: textOf(data, 'targetId') ?? null,
    }
    return unwrap(api.PUT('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } }, body }))
  })
  const keep = (name: Member, label: string, unit: string) => (
    <TextField
      form={form}
      name={name}
      label={label}
      inputMode="numeric"
      defaultValue={ownText(name)}
      hint={`${unit} whose last backup is kept; empty takes its plan’s (now ${current[name].value}).`}
    />
  )
  return (
    <>
      <h3>This site’s own policy</h3>
      <form key={own?.updatedAt ?? 'none'} onSubmit={form.submit} noValidate data-testid="backup-policy-form">
        <SelectField
          form={form}
          name="schedule"
          label="Schedule"
          defaultValue={ownText('schedule')}
          options={[
            { value: '', label: 'Its plan’s' },
            { value: 'daily', label: 'Daily' },
            { value: 'weekly', label: 'Weekly' },
            { value: 'off', label: 'Off' },
          ]}
        />
        {keep('keepDaily', 'Keep daily', 'Days')}
        {keep('keepWeekly', 'Keep weekly', 'Weeks')}
        {keep('keepMonthly', 'Keep monthly', 'Months')}
        <SelectField
          form={form}
          name="targetId"
          label="Target"
          defaultValue={own?.targetId ?? ''}
          options={[
            { value: '', label: 'The default target' },
            ...(targets.data ?? []).map((target) => ({
              value: target.id,
              label: `${target.name} (${target.kind})`,
            })),
          ]}
          hint="Where its next backups go (a new repository there); the backups taken stay listed where they are."
        />
        <SavedNotice form={form} />
        <FormFooter form={form}>Save policy</FormFooter>
      </form>
      {own ? (
        <ConfirmAction
          confirmLabel="Confirm reset to its plan’s policy"
          run={() =>
            unwrap(api.DELETE('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
          }
        >
          Reset to its plan’s policy
        </ConfirmAction>
      ) : null}
    </>
  )
}
