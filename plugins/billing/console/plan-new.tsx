// `/plans/new`: staff create a plan (name, description, brand, limits); a refusal shows at its field.

import {
  BrandField,
  Breadcrumbs,
  FormProblem,
  navigate,
  PageHeader,
  Section,
  SubmitButton,
  TextAreaField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { LimitFields } from './limit-fields.tsx'
import { limitsForCreate, phpForCreate } from './limits.ts'

export function PlanNew() {
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
            php: phpForCreate(data),
          },
        }),
      ),
    {
      onSuccess: (plan) => {
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
