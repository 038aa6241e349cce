// Refusals of the certificates plugin: what an uploaded certificate, key or chain can be refused for, and the
// refusals of attaching, deleting and issuing certificates.

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
      'Accepted keys: RSA of at least 2048 bits, and ECDSA on P-256, P-384 or P-521. DSA, other curves, RSA-PSS, Ed25519 and Ed448 keys are refused: browsers do not accept them.',
  },
  incomplete_chain: {
    status: 422,
    detail: 'The chain does not lead from the certificate to a root.',
    description:
      'The certificate that issued the certificate (or an intermediate) is not in `chainPem`, and is no root browsers trust: add the intermediates your CA sent (and, for a private CA, its root, which is not served); or the certificate is self-signed and `selfSigned` is not set.',
  },
  chain_issuer_not_ca: {
    status: 422,
    detail: 'A certificate of the chain is not a certification authority.',
    description:
      'Each intermediate must say `CA:TRUE` (basicConstraints) and, when it limits its key usage, allow `keyCertSign`: clients refuse a chain through any other certificate.',
  },
  certificate_without_names: {
    status: 422,
    detail: 'The certificate names no domain in a subjectAltName.',
    description:
      'Browsers match the site’s domain against the subjectAltName only (never the common name): issue the certificate with `subjectAltName=DNS:<domain>`.',
  },
  chain_not_for_certificate: {
    status: 422,
    detail: 'The chain holds certificates that are not part of the certificate’s chain.',
    description:
      'Every certificate of `chainPem` must issue the certificate or another certificate on its way to the root; remove the others.',
  },
  certificate_fields_missing: {
    status: 422,
    detail: 'Give `certificatePem` and `privateKeyPem`, or `source: "acme"` with `domains`.',
    description:
      'An upload needs the certificate and its key; an ACME certificate needs the domains to issue it for. The field named is the one missing.',
  },
  field_not_for_source: {
    status: 422,
    detail: 'The field belongs to the other kind of certificate.',
    description:
      '`domains` is for `source: "acme"`; `certificatePem`, `privateKeyPem`, `chainPem`, `passphrase` and `selfSigned` are for uploads. Send one kind’s fields only.',
  },
  invalid_acme_domain: {
    status: 422,
    detail: 'A domain to issue for is not a host name.',
    description: 'Each of `domains` is a DNS name such as `shop.example.com` (IDNs as Unicode or punycode).',
  },
  acme_wildcard_unsupported: {
    status: 422,
    detail: 'ACME certificates here are proven over HTTP, which cannot prove a wildcard.',
    description:
      'The panel answers HTTP-01 challenges, and a CA only issues `*.` names after a DNS-01 challenge: list each name, or upload a wildcard certificate.',
  },
  acme_domain_not_hosted: {
    status: 422,
    detail: 'A domain to issue for is not the domain of one of the customer’s sites.',
    description:
      'The CA checks each domain by fetching a file from it, which the node of the site serving the domain answers: create the site first (or choose its domain).',
  },
  acme_disabled: {
    status: 422,
    detail: 'This installation does not issue certificates through ACME.',
    description: 'The operator turned ACME off; upload a certificate instead.',
  },
  not_acme_certificate: {
    status: 409,
    detail: 'Only ACME certificates are renewed by the panel.',
    description:
      'An uploaded certificate is replaced by uploading its successor and attaching it to the sites.',
  },
  certificate_busy: {
    status: 409,
    detail: 'The certificate is being issued or renewed already.',
    description: 'Wait for the job in `jobId` to end.',
  },
  certificate_in_use: {
    status: 409,
    detail: 'Sites use the certificate.',
    description:
      'Attach another certificate to the sites in `sites` (or detach it with `DELETE /sites/{id}/certificate`) first.',
  },
  unknown_certificate: {
    status: 422,
    detail: 'No certificate with that id belongs to the site’s customer.',
    description: '`certificateId` names a certificate of the same customer as the site.',
  },
  certificate_not_usable: {
    status: 422,
    detail: 'The certificate cannot be served: it is not issued yet, its issuance failed, or it has expired.',
    description: 'Only `active` and `expiring` certificates are attached to sites.',
  },
  certificate_name_mismatch: {
    status: 422,
    detail: 'The certificate’s names do not cover the site’s domain.',
    description:
      'One of the certificate’s `names` must be the site’s domain, or a wildcard `*.` for its parent (one label only: `*.example.com` covers `shop.example.com`, not `example.com` nor `a.shop.example.com`).',
  },
  site_not_servable: {
    status: 409,
    detail: 'The site is not on a node, or is being deleted.',
    description: 'A certificate is installed on the site’s node: wait for the site to be placed, or keep it.',
  },
})
