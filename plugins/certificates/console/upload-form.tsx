// Uploading a certificate with its key (and chain). The panel checks everything before it keeps anything, and says
// at each field what it refused: a key that is not the certificate's, an expired certificate, a missing chain.

import {
  CheckboxField,
  CustomerField,
  FormFooter,
  navigate,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { PemField } from './pem-field.tsx'

export function UploadCertificateForm() {
  const form = useApiForm(
    (data) => {
      const body: Schemas['CreateCertificateBody'] = {
        customerId: textOf(data, 'customerId') ?? '',
        source: 'uploaded',
      }
      const certificatePem = textOf(data, 'certificatePem')
      if (certificatePem) body.certificatePem = certificatePem
      const privateKeyPem = textOf(data, 'privateKeyPem')
      if (privateKeyPem) body.privateKeyPem = privateKeyPem
      const chainPem = textOf(data, 'chainPem')
      if (chainPem) body.chainPem = chainPem
      // Not trimmed: a passphrase is what it is.
      const passphrase = data.get('passphrase')
      if (typeof passphrase === 'string' && passphrase !== '') body.passphrase = passphrase
      if (data.get('selfSigned') === 'true') body.selfSigned = true
      return unwrap(api.POST('/api/v1/certificates', { body }))
    },
    {
      onSuccess: (certificate) => {
        navigate(`/certificates/${encodeURIComponent(certificate.id)}`)
      },
    },
  )
  return (
    <form onSubmit={form.submit} noValidate aria-label="Upload a certificate">
      <CustomerField form={form} />
      <PemField
        form={form}
        name="certificatePem"
        label="Certificate PEM"
        fileLabel="Read the certificate from a file"
        hint="The certificate issued for your domains: one -----BEGIN CERTIFICATE----- block, without its chain."
      />
      <PemField
        form={form}
        name="privateKeyPem"
        label="Private key PEM"
        fileLabel="Read the private key from a file"
        hint="Its private key. Sealed at once and never shown again."
      />
      <TextField
        form={form}
        name="passphrase"
        label="Key passphrase (optional)"
        type="password"
        autoComplete="off"
        hint="Only for an encrypted key. Used once to read it, never kept."
      />
      <PemField
        form={form}
        name="chainPem"
        label="Chain PEM (optional)"
        fileLabel="Read the chain from a file"
        hint="The intermediate certificates, in any order. Not needed when a root of browsers issued the certificate’s issuer."
      />
      <CheckboxField
        form={form}
        name="selfSigned"
        label="Accept a self-signed certificate"
        hint="Browsers warn about self-signed certificates; use them for testing."
      />
      <FormFooter form={form}>Upload certificate</FormFooter>
    </form>
  )
}
