// The reason phrase of each HTTP error status: RFC 9457 wants `title` to match it when `type` is about:blank.

/**
 * Reason phrases of the error statuses in IANA's HTTP Status Code Registry: RFC 9110's, and those of RFC 6585
 * (428, 429, 431, 511), RFC 4918 (423, 424, 507), RFC 8470 (425), RFC 7725 (451), RFC 5842 (508).
 */
export const statusTitles: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  511: 'Network Authentication Required',
}

/**
 * The reason phrase of `status`. Problem codes may only use registered statuses ({@link defineProblems} refuses
 * others), so the generic fallback is only for a status some other part of a host answers with.
 */
export function statusTitle(status: number): string {
  return statusTitles[status] ?? (status >= 500 ? 'Server Error' : 'Client Error')
}
