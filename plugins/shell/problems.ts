// The shell plugin's refusals.

import { defineProblems } from '../../core/index.ts'

export const shellProblems = defineProblems({
  invalid_argv: {
    status: 422,
    detail:
      'argv must be 1 to 256 strings without NUL characters, the first not empty, 128 Ki characters in all.',
    description:
      '`argv` is the program and its arguments as an array (never a shell string): no item may hold a NUL character, the program may not be empty, and the whole must stay within the limits.',
  },
  invalid_working_directory: {
    status: 422,
    detail: 'cwd must be /htdocs, /tmp, /logs or a directory below them, without .. climbing out.',
    description:
      '`cwd` names a directory as the site sees it: under `/htdocs`, `/tmp` or `/logs`, no NUL or control characters, no `..` segment.',
  },
  shell_session_limit: {
    status: 409,
    detail: 'The site already has as many shell sessions as it may have at once.',
    description:
      'Shell sessions pending or open on the site reached `SHELL_SESSIONS_PER_SITE` (default 3): end one first.',
  },
  shell_token_invalid: {
    status: 403,
    detail: 'The shell session token is wrong, used already or expired.',
    description:
      'A shell session’s token connects once, within 60 s of the session’s creation; ask for a new session with `POST /sites/{id}/shell-sessions`.',
  },
  shell_access_revoked: {
    status: 403,
    detail: 'Whoever asked for this shell session may no longer open a shell in the site.',
    description:
      'The session was asked for with a token since revoked or expired, by a user since disabled, or by a member who no longer holds `site:shell` on the site’s customer: its token no longer connects (and a live session ends with the reason `access_revoked`).',
  },
  origin_not_allowed: {
    status: 403,
    detail: 'The WebSocket’s Origin is not the panel’s, nor one the installation allows.',
    description:
      'A browser opening the shell’s WebSocket from a page of another origin is refused (cross-site WebSocket hijacking); `SHELL_ALLOWED_ORIGINS` lists origins allowed besides the panel’s own. Clients that send no Origin (not browsers) are not concerned.',
  },
  websocket_required: {
    status: 426,
    detail: 'This address opens a WebSocket: connect with Upgrade: websocket.',
    description:
      'A shell session’s `url` is a WebSocket; a plain request to it is refused without using the token.',
  },
  shell_unavailable: {
    status: 409,
    detail: 'The site’s node cannot run commands or shells confined to the site.',
    description:
      'The node makes no Unix user per site (it lays out files only, or its runtime does not run as root), so nothing can run as the site’s user in its sandbox.',
  },
})
