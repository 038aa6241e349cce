// The DNS zones plugin's refusals, each with its stable code.

import { defineProblems } from '../../core/index.ts'

export const dnsProblems = defineProblems({
  invalid_zone_name: {
    status: 422,
    detail: 'The zone name is not a domain name.',
    description: '`name`: two labels or more (letters, digits, inner hyphens), without the final dot.',
  },
  dns_zone_taken: {
    status: 409,
    detail: 'This zone, or one above or below it of another customer, is kept here already.',
    description: 'Zone names are unique in the installation, and no customer’s zone is inside another’s.',
  },
  dns_zone_limit_reached: {
    status: 422,
    detail: 'The customer already has as many DNS zones as its limits allow.',
    description: 'Creating the zone would pass the customer’s `dnsZones` limit (its plans, or the defaults).',
  },
  invalid_record_name: {
    status: 422,
    detail: 'The name is not a name in the zone.',
    description: '`name`: `@`, or labels relative to the zone (host names for A, AAAA and MX; `*` first).',
  },
  invalid_record_content: {
    status: 422,
    detail: 'The content does not suit the record’s type.',
    description: 'A: IPv4; AAAA: IPv6; CNAME: a domain; MX: `0`-`65535` and a host name; TXT: no controls.',
  },
  cname_conflict: {
    status: 409,
    detail: 'A CNAME cannot share its name with other records.',
    description:
      'The name holds a CNAME, or other records (at `@`, the SOA and NS) beside the CNAME asked for.',
  },
  duplicate_record: {
    status: 409,
    detail: 'The zone already has this record.',
    description: 'A record of the same name, type and content exists.',
  },
})
