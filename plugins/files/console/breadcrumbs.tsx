// Where in the site a folder or file is: each folder from the home down, a link, the last one the current page.

import { Link } from '../../console/kit.ts'
import { folderPage, foldersOf } from './paths.ts'

/**
 * The folders down to `path`. `fileName`, when given, is shown after them as the current item (the editor's file);
 * otherwise the last folder is the current one.
 */
export function Breadcrumbs({ siteId, path, fileName }: { siteId: string; path: string; fileName?: string }) {
  const folders = foldersOf(path)
  return (
    <nav className="breadcrumbs" aria-label="Folder path">
      <ol>
        {folders.map((folder, index) => {
          const current = !fileName && index === folders.length - 1
          return (
            <li key={folder.path}>
              {current ? (
                <span aria-current="page">{folder.name}</span>
              ) : (
                <Link to={folderPage(siteId, folder.path)}>{folder.name}</Link>
              )}
            </li>
          )
        })}
        {fileName ? (
          <li>
            <span aria-current="page">{fileName}</span>
          </li>
        ) : null}
      </ol>
    </nav>
  )
}
