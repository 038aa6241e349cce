// Refusals of the php plugin: document roots of `php` and `static` sites, and sites' PHP versions and settings.

import { defineProblems } from '../../core/index.ts'

/** The php plugin's problem codes, catalogued in docs/problem-codes.md. */
export const phpProblems = defineProblems({
  invalid_document_root: {
    status: 422,
    detail:
      'A document root is a relative folder under `htdocs/`: names of letters, digits, `_`, `.` and `-`, none starting with a dot, separated by `/`, at most 8 deep.',
    description:
      'The create option `php.root` or `static.root` (`public`, `web/public`) may not start with `/`, hold `..` or a name starting with a dot, nor any character outside `A-Z a-z 0-9 _ . -` and `/`.',
  },
  site_without_php: {
    status: 409,
    detail: 'The site is served without PHP: it has no PHP settings.',
    description:
      'Only sites whose type runs PHP (`wordpress`, `php`) have a PHP version and settings; a `static` site is served by nginx alone.',
  },
  php_version_unavailable: {
    status: 422,
    detail: 'The site’s node has no such PHP version.',
    description:
      'The `version` is not one of the PHP versions the site’s node has (its capabilities’ `phpVersions`, listed as `available`).',
  },
  invalid_php_size: {
    status: 422,
    detail: 'A size is a whole number followed by K, M or G (`256M`).',
    description:
      'Sizes (`memory_limit`, `upload_max_filesize`, `post_max_size`) are written `<number><K|M|G>`.',
  },
  php_setting_out_of_range: {
    status: 422,
    detail: 'The value is outside what the setting takes.',
    description:
      'Each setting has a range (`minimum` and `maximum` in the problem, in the setting’s unit: MB for sizes): `memory_limit` 16M to 8G, `upload_max_filesize` and `post_max_size` 1M to 16G, `max_execution_time` and `max_input_time` 1 to 3600 (`max_input_time` also -1: as long as the script may run), `max_input_vars` 100 to 100000, `max_file_uploads` 1 to 1000.',
  },
  php_setting_over_plan: {
    status: 422,
    detail: 'The value is over what the customer’s plan allows.',
    description:
      'The customer’s plans cap some settings (`phpSettings.maxMemoryLimitMB`, `maxUploadMB`, `maxExecutionTime`, `maxInputVars`); the problem names the cap (`cap`) and its value (`maximum`, in the setting’s unit).',
  },
  post_max_size_below_upload: {
    status: 422,
    detail:
      '`post_max_size` must be at least `upload_max_filesize`: an upload larger than the post would be dropped.',
    description:
      'A request body carries the uploaded file, so `post_max_size` smaller than `upload_max_filesize` makes uploads fail silently.',
  },
})
