#!/usr/bin/env bash
# Bad input to a demo program (demos/command_line.h): --help prints its usage and exits 0, making
# nothing; an unexpected argument, or a file where its output folder should be, ends it with one
# line on stderr and exit status 1, not an abort.
# Usage: check_bad_input.sh PROGRAM takes-folder|takes-nothing WORK_DIR
set -uo pipefail
program=$1 kind=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

usage=$("$program" --help) || fail "--help exited with status $?"
[[ $usage == usage:* ]] || fail "--help printed: $usage"
[ -z "$(ls -A)" ] || fail "--help made: $(ls -A)"
echo "--help: $usage"

# Runs the program with the given arguments; it must exit 1 with exactly one line on stderr.
expect_one_line_error() {
  "$program" "$@" >out.txt 2>err.txt
  local status=$?
  [ $status -eq 1 ] || fail "with arguments ($*) it exited with status $status, not 1: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "with arguments ($*) stderr was not one line: $(cat err.txt)"
  echo "($*): $(cat err.txt)"
}
if [ "$kind" = takes-folder ]; then
  touch "a file"
  expect_one_line_error "a file"
  grep -q "cannot write into 'a file': it is a file, not a folder" err.txt || fail "the message does not name the file"
  expect_one_line_error folder extra
else
  expect_one_line_error extra
fi
grep -q "unexpected argument 'extra'" err.txt || fail "the message does not name the unexpected argument"
