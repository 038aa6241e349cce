// The app's pages, as the shell indexed them, for what reads them below the shell (a page's tabs).

import { createContext, useContext } from 'react'
import type { ConsolePages } from './console-pages.ts'

const PagesContext = createContext<ConsolePages | null>(null)

/** Gives the pages below it the app's index of pages. */
export const PagesProvider = PagesContext.Provider

/** The app's index of pages (every module's). */
export function usePages(): ConsolePages {
  const pages = useContext(PagesContext)
  if (!pages) throw new Error('usePages outside the app')
  return pages
}
