// The "Brand" select of forms that make something a brand owns (a plan, a webhook endpoint): shown to platform
// staff who read brands, with a first choice saying what no brand means; brand staff's things are always their own
// brand's, so they see no field and send none.

import { useBrandOptions } from './brands.ts'
import { type ApiForm, SelectField } from './form.tsx'

/** The `brandId` select, or nothing for callers who cannot choose a brand. */
export function BrandField<R>({
  form,
  none,
  hint,
  markDefault = false,
}: {
  form: ApiForm<R>
  /** The label of the empty choice ("Default brand"). */
  none: string
  hint: string
  /** Adds "(default)" to the default brand's name. */
  markDefault?: boolean
}) {
  const brands = useBrandOptions({ markDefault })
  if (brands.length === 0) return null
  return (
    <SelectField
      form={form}
      name="brandId"
      label="Brand"
      hint={hint}
      options={[{ value: '', label: none }, ...brands]}
    />
  )
}
