#!/usr/bin/env bash
# Fails, naming the files, when a file tracked by git has more than 420 lines: a longer file is
# hard to read in one sitting and should be split along its seams. Generated data is exempt
# (tests/fixtures/, the JSON that tools/make_fixtures.py writes). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=420
files=$(git ls-files | grep -v '^tests/fixtures/')
over=()
for f in $files; do
  [ -f "$f" ] || continue  # deleted in the working tree
  n=$(wc -l <"$f")
  ((n <= limit)) || over+=("$f ($n lines)")
done
if ((${#over[@]})); then
  echo "check_file_sizes: over $limit lines, split these along their seams:"
  printf '  %s\n' "${over[@]}"
  exit 1
fi
echo "check_file_sizes: every tracked file has at most $limit lines"
