// The staging plugin's refusals.

import { defineProblems } from '../../core/index.ts'

/** The staging plugin's problem codes, catalogued in docs/problem-codes.md. */
export const stagingProblems = defineProblems({
  staging_exists: {
    status: 409,
    detail: 'The site already has a staging copy: push it, or delete it before making another.',
    description:
      'One staging copy per live site. `stagingSiteId` names it; `DELETE /sites/{stagingSiteId}` deletes it like any site.',
  },
  site_is_staging: {
    status: 409,
    detail: 'The site is a staging copy: a staging copy has no staging copy of its own.',
    description: '`liveSiteId` names its live site, whose staging copy it is.',
  },
  not_a_staging_site: {
    status: 409,
    detail: 'The site is not a staging copy: push from the staging site to its live site.',
    description:
      '`POST /sites/{id}/push` is called on the staging site (`GET /sites/{liveId}/staging` names it as `stagingSiteId`).',
  },
  staging_not_ready: {
    status: 409,
    detail: 'The staging copy is not ready: wait for its copy to end, or make a new one if it failed.',
    description: 'A push needs a `ready` staging copy; `status` says where it stands.',
  },
  staging_unsupported: {
    status: 422,
    detail: 'Sites of this type have no staging copies.',
    description:
      'A staging copy is a restore into a new site of the same type, which the type’s restore adapter must say how to do (the backups plugin’s `cloneableSiteTypes` capability lists those types; WordPress does).',
  },
  staging_not_found: {
    status: 404,
    detail: 'The site has no staging copy and is none.',
    description: 'Make one with `POST /sites/{id}/staging`.',
  },
  nothing_to_push: {
    status: 422,
    detail: 'The push names nothing: set `files`, `tables` or both.',
    description: '`files: true` pushes every file, `tables: true` the whole database.',
  },
  invalid_push_path: {
    status: 422,
    detail:
      'A path to push must be absolute within the site and inside `/htdocs`, without `..` segments or control characters.',
    description: 'Paths as the files API names them: `/htdocs/wp-content/themes/shop`.',
  },
  invalid_table_name: {
    status: 422,
    detail: 'A table name is 1 to 64 letters, digits, `_` and `$`.',
    description: 'Names as the database has them (`wp_posts`); anything else never reaches the database.',
  },
})
