// Refusals of the certificates plugin: what an uploaded certificate, key or chain can be refused for.

import { defineProblems } from '../../core/index.ts'

/** The certificates plugin's problem codes, catalogued in docs/problem-codes.md. */
export const certificatesProblems = defineProblems({
  pem_too_large: {
    status: 422,
    detail: 'A PEM field is larger than 64 KiB.',
    description:
      '`certificatePem`, `privateKeyPem` and `chainPem` are each at most 65,536 bytes; a certificate with its key and a few intermediates fits in a tenth of that.',
  },
  chain_too_long: {
    status: 422,
    detail: 'The chain holds more than 10 certificates.',
    description:
      '`chainPem` holds the intermediates between the certificate and a root: real chains have one to three.',
  },
  invalid_certificate_pem: {
    status: 422,
    detail: 'The certificate is not one readable PEM `CERTIFICATE` block.',
    description:
      '`certificatePem` holds exactly one `-----BEGIN CERTIFICATE-----` block with a DER X.509 certificate; intermediates go in `chainPem`.',
  },
  invalid_private_key_pem: {
    status: 422,
    detail: 'The private key is not one readable PEM private key.',
    description:
      '`privateKeyPem` holds one `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY` block. An encrypted PKCS#8 key uses PBES2 with PBKDF2 of at most 1,000,000 rounds (what `openssl pkcs8 -topk8 -v2 aes-256-cbc` writes).',
  },
  private_key_passphrase_required: {
    status: 422,
    detail: 'The private key is encrypted; give its passphrase.',
    description: 'Send `passphrase` with the key, or upload the key unencrypted.',
  },
  wrong_private_key_passphrase: {
    status: 422,
    detail: 'The passphrase does not decrypt the private key.',
    description: 'The key could not be decrypted with `passphrase`. Nothing was stored.',
  },
  invalid_chain_pem: {
    status: 422,
    detail: 'The chain is not a series of readable PEM `CERTIFICATE` blocks.',
    description:
      '`chainPem` holds the intermediate certificates, each as a `-----BEGIN CERTIFICATE-----` block, in any order.',
  },
  key_certificate_mismatch: {
    status: 422,
    detail: 'The private key does not belong to the certificate.',
    description:
      'The key’s public half differs from the certificate’s public key: upload the key the request was made with.',
  },
  certificate_expired: {
    status: 422,
    detail: 'The certificate has expired.',
    description:
      'The certificate’s (or, at `body.chainPem`, an intermediate’s) `notAfter` has passed: renew it and upload the new one.',
  },
  certificate_not_yet_valid: {
    status: 422,
    detail: 'The certificate is not valid yet.',
    description:
      'The certificate’s (or, at `body.chainPem`, an intermediate’s) `notBefore` is in the future: upload it once it is valid.',
  },
  certificate_is_ca: {
    status: 422,
    detail: 'The certificate is a CA certificate, not a server certificate.',
    description:
      'Its basicConstraints say `CA:TRUE`: this is usually an intermediate given in place of the certificate issued for the domains.',
  },
  weak_key: {
    status: 422,
    detail: 'The key is too small or of a type browsers do not accept.',
    description:
      'Accepted keys: RSA of at least 2048 bits, ECDSA on P-256, P-384 or P-521, and Ed25519. DSA, other curves and RSA-PSS keys are refused.',
  },
  incomplete_chain: {
    status: 422,
    detail: 'The chain does not lead from the certificate to a root.',
    description:
      'The certificate that issued the certificate is not in `chainPem` (add the intermediates your CA sent, or the root for a certificate a root issued directly), or the certificate is self-signed and `selfSigned` is not set.',
  },
  chain_not_for_certificate: {
    status: 422,
    detail: 'The chain holds certificates that are not part of the certificate’s chain.',
    description:
      'Every certificate of `chainPem` must issue the certificate or another certificate on its way to the root; remove the others.',
  },
})
