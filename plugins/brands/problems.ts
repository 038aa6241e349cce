// Refusals of the brands plugin.

import { defineProblems } from '../../core/index.ts'

export const brandsProblems = defineProblems({
  brand_name_taken: {
    status: 409,
    detail: 'Another brand already has this name.',
    description: 'Brand names are unique within the installation.',
  },
  empty_brand_update: {
    status: 422,
    detail: 'The request changes nothing: give name, theme or hostnames.',
    description:
      '`PATCH /api/v1/brands/{id}` needs at least one of `name`, `hostnames` and a `theme` with at least one field (at `body`).',
  },
  invalid_theme_color: {
    status: 422,
    detail: 'A colour must be `#rrggbb` (six hexadecimal digits).',
    description:
      'A theme colour (`theme.primaryColor`, `theme.accentColor`) is `#` and six hexadecimal digits; it is stored in lower case.',
  },
  invalid_logo: {
    status: 422,
    detail: 'The logo must be a base64 `data:` URL of a PNG, JPEG, WebP or SVG image.',
    description:
      '`theme.logo` is a `data:` URL such as `data:image/png;base64,iVBORw0…`, of type `image/png`, `image/jpeg`, `image/webp` or `image/svg+xml`, with canonical base64 (no spaces, padded, not empty).',
  },
  logo_type_mismatch: {
    status: 422,
    detail: 'The logo’s bytes are not an image of the type its data URL declares.',
    description:
      'The decoded bytes are checked against the declared type (the PNG, JPEG or WebP signature; for SVG, UTF-8 text with an `svg` root element): declare the type the file really has.',
  },
  logo_too_large: {
    status: 422,
    detail: 'The logo is larger than 128 KiB.',
    description:
      'A logo is at most 128 KiB (131,072 bytes) once its base64 is decoded: scale or compress it.',
  },
  unsafe_svg_logo: {
    status: 422,
    detail: 'The SVG logo contains scripts, event handlers or references to other resources.',
    description:
      'An SVG logo may not contain `script` or `foreignObject` elements (nor others that embed documents: `iframe`, `embed`, `object`, …), `on…=` event attributes, `javascript:` URLs, entity declarations, style sheets to load, animations of references or handlers, or any `href`, `src` or CSS `url()` other than a `#fragment` within the image. The detail says what was found.',
  },
  invalid_brand_hostname: {
    status: 422,
    detail: 'A host name must be a DNS name such as `panel.example.com`, without scheme, port or path.',
    description:
      'Each of `hostnames` is a DNS name (labels of letters, digits and hyphens, at most 253 characters; no IP address, scheme, port or path); it is stored in lower case, without a trailing dot.',
  },
  brand_hostname_taken: {
    status: 409,
    detail: 'Another brand already has this host name.',
    description:
      'A host name shows one brand only: take it off the other brand first. The detail names the host, `errors[]` where it is in the body.',
  },
  brand_in_use: {
    status: 409,
    detail: 'The brand still has customers, staff or other records.',
    description:
      'A brand is deleted only once nothing belongs to it: its customers, staff, plans, webhook endpoints (whatever the installed plugins count). `blockers` lists each with how many (`[{ "name": "customers", "count": 3 }]`); move or delete them first.',
  },
  default_brand: {
    status: 409,
    detail: 'The default brand cannot be deleted.',
    description:
      'Customers and users that name no brand belong to the default brand (`isDefault: true`), so it always exists.',
  },
})
