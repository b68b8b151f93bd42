#!/usr/bin/env bash
# Runs one exercise program into a fresh folder and checks that it wrote every file it printed
# ("wrote PATH") and that a chart was drawn wherever gnuplot is installed, a picture of each graph
# wherever Graphviz's dot is.
# Usage: check_exercise.sh PROGRAM FOLDER
set -euo pipefail
program=$1 folder=$2
rm -rf "$folder" && mkdir -p "$folder"
# A program that takes an output folder (its --help says so) writes into it; one that takes none
# runs inside it.
if "$program" --help | grep -q "folder"; then
  output=$("$program" "$folder")
else
  output=$(cd "$folder" && "$program")
fi
echo "$output"
status=0
while read -r path; do
  [ -s "$path" ] || { echo "FAIL: $path was announced but is missing or empty"; status=1; }
done < <(echo "$output" | sed -n 's/^ *wrote \(.*\.[a-z]*\)\(: .*\)\?$/\1/p')
if command -v gnuplot >/dev/null && echo "$output" | grep -q "\.csv" && ! echo "$output" | grep -q "wrote .*\.png"; then
  echo "FAIL: gnuplot is installed but no chart was written"; status=1
fi
if command -v dot >/dev/null && echo "$output" | grep -q "wrote .*\.dot" && ! echo "$output" | grep -q "wrote .*\.png"; then
  echo "FAIL: Graphviz's dot is installed but no picture was drawn"; status=1
fi
exit $status
