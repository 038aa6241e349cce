// How the installation reaches its ACME certificate authority.

/** Let's Encrypt's production directory: the default. */
export const letsEncryptDirectory = 'https://acme-v02.api.letsencrypt.org/directory'

/** Where and as whom certificates are ordered. */
export interface AcmeSettings {
  /** The ACME directory URL (`ACME_DIRECTORY_URL`). */
  readonly directoryUrl: string
  /** Contact address given to the CA for its notices (`ACME_EMAIL`); none by default. */
  readonly email?: string
  /**
   * PEM certificates of further authorities trusted for the directory's own HTTPS, beside the system's
   * (`ACME_CA_FILE`): a test CA such as pebble's. The system's roots stay trusted.
   */
  readonly trustedCaPem?: string
}
