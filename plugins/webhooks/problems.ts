// Refusals of the webhooks plugin.

import { defineProblems } from '../../core/index.ts'

/** The plugin's problem codes. */
export const webhooksProblems = defineProblems({
  invalid_webhook_url: {
    status: 422,
    detail: 'The URL is not an absolute https URL.',
    description:
      'The `url` must be an absolute `https://` URL of at most 2,048 characters, without a user name or password, and not on port 0.',
  },
  webhook_url_not_https: {
    status: 422,
    detail: 'Webhook URLs must use https.',
    description:
      'Plain `http://` is allowed only for hosts the operator lists in `WEBHOOK_ALLOWED_HOSTS` (docs/webhooks.md).',
  },
  webhook_address_not_public: {
    status: 422,
    detail: 'The URL’s host is or resolves to an address webhooks may not call.',
    description:
      'Every address of the host must be public unicast: loopback, private, link-local, unique local, carrier-grade NAT, multicast, unspecified, reserved and cloud metadata addresses are refused, in any notation (`0177.0.0.1`, `2130706433`, `[::ffff:127.0.0.1]`), unless the host is listed in `WEBHOOK_ALLOWED_HOSTS`.',
  },
  webhook_host_unresolvable: {
    status: 422,
    detail: 'The URL’s host name does not resolve.',
    description:
      'The host name has no address in DNS (yet); check its spelling or DNS records and try again.',
  },
  unknown_event_kind: {
    status: 422,
    detail: 'This installation has no event of that kind.',
    description:
      'Each entry of `events` must be `"*"` or an event kind the installation declares (`GET /capabilities` lists them as `eventKinds`).',
  },
  webhook_disabled: {
    status: 409,
    detail: 'The endpoint is disabled; enable it before redelivering.',
    description:
      'A disabled endpoint (by staff, or by the panel after a 410 answer) receives nothing; `PATCH` it with `enabled: true` first.',
  },
})
