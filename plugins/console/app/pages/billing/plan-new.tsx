// `/plans/new`: staff create a plan (name, description, brand, limits); a refusal shows at its field.

import { useQueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { BrandField } from '../../components/brand-field.tsx'
import {
  FormProblem,
  SubmitButton,
  TextAreaField,
  TextField,
  textOf,
  useApiForm,
} from '../../components/form.tsx'
import { Breadcrumbs, PageHeader, Section } from '../../components/page.tsx'
import { navigate } from '../../router.tsx'
import { LimitFields } from './limit-fields.tsx'
import { limitsForCreate } from './limits.ts'

export function PlanNew() {
  const queries = useQueryClient()
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/plans', {
          body: {
            // Sent even when empty, so the API's refusal names the field.
            name: textOf(data, 'name') ?? '',
            description: textOf(data, 'description'),
            brandId: textOf(data, 'brandId'),
            limits: limitsForCreate(data),
          },
        }),
      ),
    {
      onSuccess: (plan) => {
        void queries.invalidateQueries({ queryKey: ['plans'] })
        navigate(`/plans/${encodeURIComponent(plan.id)}`)
      },
    },
  )
  return (
    <>
      <Breadcrumbs to="/plans" label="Plans" here="New plan" />
      <PageHeader title="New plan" subtitle="Customers of the plan’s brand can subscribe to it." />
      <Section title="Plan">
        <form onSubmit={form.submit} noValidate>
          <TextField form={form} name="name" label="Name" required autoComplete="off" />
          <TextAreaField
            form={form}
            name="description"
            label="Description"
            hint="Optional: what the plan is for."
          />
          <BrandField
            form={form}
            none="Default brand"
            hint="Whose customers may subscribe. Default: the default brand."
            markDefault
          />
          <LimitFields form={form} />
          <FormProblem form={form} />
          <SubmitButton form={form}>Create plan</SubmitButton>
        </form>
      </Section>
    </>
  )
}
