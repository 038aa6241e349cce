// A cron job's form: a new one (command or, on a WordPress site, WP-Cron), or changes to one; the schedule with its
// next runs beside it.

import { useState } from 'react'
import {
  CheckboxField,
  changedFields,
  FormFooter,
  numberOf,
  SavedNotice,
  SelectField,
  TextField,
  textOf,
  unchanged,
  unwrap,
  useApiForm,
  useEditForm,
  useIdempotencyKey,
} from '../../console/kit.ts'
import type { SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { SchedulePreview } from './schedule-preview.tsx'

type Site = SiteSchemas['Site']
type CronJob = Schemas['CronJob']

const scheduleHint =
  'In UTC: minute hour day-of-month month day-of-week, e.g. */5 * * * * (every 5 minutes), 30 2 * * mon-fri, or @hourly, @daily, @weekly.'
const commandHint =
  'One line, run with /bin/sh -c in the site’s home as the site’s user (e.g. php htdocs/artisan schedule:run).'

/** The schedule, command (none for WP-Cron), enabled flag and timeout the form holds, as the API takes them. */
function jobFields(data: FormData, wpCron: boolean) {
  const timeout = numberOf(data, 'timeoutSeconds')
  return {
    schedule: textOf(data, 'schedule') ?? '',
    ...(wpCron ? {} : { command: textOf(data, 'command') ?? '' }),
    enabled: data.get('enabled') === 'true',
    ...(timeout === undefined ? {} : { timeoutSeconds: timeout }),
  }
}

export function NewCronJobForm({ site }: { site: Site }) {
  const [schedule, setSchedule] = useState('')
  const [kind, setKind] = useState('command')
  const idempotency = useIdempotencyKey()
  const form = useApiForm(
    async (data) => {
      const wpCron = textOf(data, 'kind') === 'wp-cron'
      try {
        return await unwrap(
          api.POST('/api/v1/sites/{id}/cron-jobs', {
            params: { path: { id: site.id }, header: { 'Idempotency-Key': idempotency.key() } },
            body: { kind: wpCron ? 'wp-cron' : 'command', ...jobFields(data, wpCron) },
          }),
        )
      } catch (error) {
        idempotency.afterFailure(error)
        throw error
      }
    },
    {
      resetOnSuccess: true,
      onSuccess: () => {
        idempotency.afterSuccess()
        setSchedule('')
      },
    },
  )
  return (
    <form onSubmit={form.submit} noValidate data-testid="new-cron-job">
      {site.type === 'wordpress' ? (
        <SelectField
          form={form}
          name="kind"
          label="Runs"
          value={kind}
          onChange={(event) => setKind(event.target.value)}
          options={[
            { value: 'command', label: 'A command' },
            { value: 'wp-cron', label: 'WordPress’s WP-Cron (wp-cron.php)' },
          ]}
          hint="WP-Cron as a cron job: WordPress no longer runs it on page views (DISABLE_WP_CRON in wp-config.php) while this job exists."
        />
      ) : null}
      <TextField
        form={form}
        name="schedule"
        label="Schedule"
        autoComplete="off"
        spellCheck={false}
        value={schedule}
        onChange={(event) => setSchedule(event.target.value)}
        hint={scheduleHint}
      />
      <SchedulePreview schedule={schedule} />
      {kind === 'wp-cron' ? null : (
        <TextField
          form={form}
          name="command"
          label="Command"
          autoComplete="off"
          spellCheck={false}
          hint={commandHint}
        />
      )}
      <TextField
        form={form}
        name="timeoutSeconds"
        label="Timeout (seconds)"
        inputMode="numeric"
        hint="Optional. A run lasting longer is killed (timed out). Default 300."
      />
      <CheckboxField
        form={form}
        name="enabled"
        label="Enabled"
        defaultChecked
        hint="Disabled jobs run only when asked to."
      />
      <FormFooter form={form}>Create cron job</FormFooter>
    </form>
  )
}

export function EditCronJobForm({ site, job, onDone }: { site: Site; job: CronJob; onDone: () => void }) {
  const [schedule, setSchedule] = useState(job.schedule)
  const form = useEditForm(
    async (data) => {
      const body = changedFields<Schemas['CronJobChange']>(job, jobFields(data, job.kind === 'wp-cron'))
      if (Object.keys(body).length === 0) return unchanged
      return unwrap(
        api.PATCH('/api/v1/sites/{id}/cron-jobs/{cronJobId}', {
          params: { path: { id: site.id, cronJobId: job.id } },
          body,
        }),
      )
    },
    { onSaved: onDone },
  )
  return (
    <form onSubmit={form.submit} noValidate data-testid="edit-cron-job">
      <TextField
        form={form}
        name="schedule"
        label="Schedule"
        autoComplete="off"
        spellCheck={false}
        value={schedule}
        onChange={(event) => setSchedule(event.target.value)}
        hint={scheduleHint}
      />
      <SchedulePreview schedule={schedule} />
      {job.kind === 'wp-cron' ? null : (
        <TextField
          form={form}
          name="command"
          label="Command"
          autoComplete="off"
          spellCheck={false}
          defaultValue={job.command}
          hint={commandHint}
        />
      )}
      <TextField
        form={form}
        name="timeoutSeconds"
        label="Timeout (seconds)"
        inputMode="numeric"
        defaultValue={String(job.timeoutSeconds)}
      />
      <CheckboxField form={form} name="enabled" label="Enabled" defaultChecked={job.enabled} />
      <SavedNotice form={form} />
      <FormFooter form={form}>Save cron job</FormFooter>
    </form>
  )
}
