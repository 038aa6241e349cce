// The reason phrase of each HTTP status Plinth emits: RFC 9457 wants `title` to match it when `type` is about:blank.

/** Reason phrases by status, as registered with IANA (RFC 9110 and friends). */
export const statusTitles: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** The reason phrase for `status`, or a generic one for a status missing from the table. */
export function statusTitle(status: number): string {
  return statusTitles[status] ?? (status >= 500 ? 'Server Error' : 'Client Error')
}
