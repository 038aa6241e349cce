#!/bin/sh
# Lines of a folder as the examples' size is measured: non-blank lines that are not only comments (`//`, `/*`,
# `*`, `*/`) of its non-test source files, leaving out generated API types and Markdown.
# Usage: sh scripts/count-lines.sh examples/dns-zones
find "${1:?a folder}" -type f \( -name '*.ts' -o -name '*.tsx' \) ! -name '*.test.ts' ! -name 'schema.d.ts' |
  sort | while read -r file; do
    printf '%5d %s\n' "$(grep -cvE '^\s*($|//|/\*|\*)' "$file")" "$file"
  done | awk '{ print; total += $1 } END { printf "%5d total\n", total }'
