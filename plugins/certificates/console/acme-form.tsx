// Ordering a certificate through ACME (Let's Encrypt unless the installation names another CA). Each domain must
// be one of the customer's sites' domains, whose node answers the CA's challenge; the order is a job the
// certificate's page follows. Whether the installation orders at all is not in the capabilities, so a refusal
// (`acme_disabled`) is shown as it comes.

import {
  CustomerField,
  FormFooter,
  ListField,
  listOf,
  navigate,
  textOf,
  unwrap,
  useApiForm,
  useChosenCustomer,
} from '../../console/kit.ts'
import { useCustomerSites } from '../../sites/console/contract.ts'
import { api } from './api.ts'

export function AcmeOrderForm() {
  const chosen = useChosenCustomer()
  const sites = useCustomerSites(chosen.customerId)
  const form = useApiForm(
    (data) =>
      unwrap(
        api.POST('/api/v1/certificates', {
          body: {
            customerId: textOf(data, 'customerId') ?? '',
            source: 'acme',
            domains: listOf(data, 'domains') ?? [],
          },
        }),
      ),
    {
      onSuccess: (certificate) => {
        navigate(`/certificates/${encodeURIComponent(certificate.id)}`)
      },
    },
  )
  // `acme_disabled` names `body.source`, which this form sends for the caller: its title and detail say it already.
  form.register('source')
  const domains = (sites.data ?? []).map((site) => site.domain)
  return (
    <form onSubmit={form.submit} noValidate aria-label="Order a certificate through ACME">
      <CustomerField form={form} chosen={chosen} />
      <ListField
        form={form}
        name="domains"
        label="Domains"
        multiline
        hint={`One a line; the first is the common name. Each must be the domain of one of the customer’s sites, pointing at its node; no wildcards.${
          domains.length > 0 ? ` This customer’s sites: ${domains.join(', ')}.` : ''
        }`}
      />
      <FormFooter form={form}>Order certificate</FormFooter>
    </form>
  )
}
