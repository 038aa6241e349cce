// The string formats of the brands plugin's bodies, each refused with its own code at the field.

import { defineFormat } from '../../core/index.ts'
import { canonicalHostname } from './hostnames.ts'
import { brandsProblems } from './problems.ts'

/** A theme colour as given: `#rrggbb`, in either case (stored in lower case). */
export const ThemeColor = defineFormat({
  name: 'brand-theme-color',
  check: (value) => /^#[0-9a-fA-F]{6}$/.test(value),
  problem: brandsProblems.invalid_theme_color,
})

/** A brand's host name as given: a DNS name, in any case (stored in lower case, without a trailing dot). */
export const BrandHostname = defineFormat({
  name: 'brand-hostname',
  check: (value) => canonicalHostname(value) !== null,
  problem: brandsProblems.invalid_brand_hostname,
})
