#!/usr/bin/env bash
# PyTorch's own tests, run unchanged against ember (python/pytorch_tests/README.md says how and why).
#   bash tools/pytorch_tests.sh fetch            - put PyTorch 1.13.1's test files into the cache
#   bash tools/pytorch_tests.sh run [--torch=real] [runner arguments]
#                                                - fetch if needed, then run them under ember (or real torch)
# The tests come from Debian's source package `pytorch` 1.13.1+dfsg, fetched with apt's own client
# through a private deb-src list made from this machine's own apt sources (no host is written here),
# its hash checked by apt against the signed index, into a cache outside the repository
# (EMBER_PYTORCH_CACHE, default ~/.cache/ember). Only the test files the runner needs are unpacked;
# nothing of PyTorch's is committed. Where the package cannot be fetched (no network, no deb
# sources), `run` prints tests/skip.h's marker with the reason, so CTest reports the test skipped,
# never passed.
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.13.1+dfsg
cache=${EMBER_PYTORCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ember}/pytorch-$version
tests=$cache/test
# The test files the runner runs (python/pytorch_tests/selection.py names their methods).
files=(test/test_autograd.py test/autograd/test_complex.py test/autograd/test_functional.py)

skip() {
  echo "ember test skipped: $*"
  exit 0
}

fetch() {
  local missing=0
  for f in "${files[@]}"; do [ -f "$cache/$f" ] || missing=1; done
  [ "$missing" = 1 ] || return 0
  command -v apt-get >/dev/null || skip "PyTorch's tests need apt-get to fetch Debian's source package pytorch"
  local apt=$cache/apt
  mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"
  : >"$apt/empty.list"
  # deb-src entries for every deb entry of the machine's own sources (deb822 and one-line forms).
  rm -f "$apt/parts/"*
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*\bdeb\b.*$/Types: deb-src/' "$f" >"$apt/parts/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >>"$apt/parts/machine.list"
  done
  local options=(-o "Dir::Etc::SourceList=$apt/empty.list" -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=$(id -un)"
    -o "Debug::NoLocking=1")
  apt-get "${options[@]}" -qq update >"$apt/update.log" 2>&1 ||
    skip "apt could not read the deb-src indexes of this machine's sources ($apt/update.log)"
  # The orig tarball alone (about 18 MB) holds test/; its URI and SHA256 come from the signed index.
  local line
  line=$(apt-get "${options[@]}" source --print-uris pytorch 2>/dev/null | grep "pytorch_${version}.orig.tar" || true)
  [ -n "$line" ] || skip "Debian's source package pytorch $version is not in this machine's apt sources"
  local uri name hash
  uri=$(echo "$line" | awk '{print $1}' | tr -d "'")
  name=$(echo "$line" | awk '{print $2}')
  hash=$(echo "$line" | awk '{print $4}')
  /usr/lib/apt/apt-helper -o "APT::Sandbox::User=$(id -un)" download-file "$uri" "$apt/$name" "$hash" \
    >"$apt/download.log" 2>&1 || skip "apt could not download $name ($apt/download.log)"
  local unpack=$apt/unpack
  rm -rf "$unpack" && mkdir -p "$unpack"
  tar --no-same-owner -xJf "$apt/$name" -C "$unpack" "${files[@]/#/pytorch-1.13.1/}"
  for f in "${files[@]}"; do
    mkdir -p "$cache/$(dirname "$f")"
    mv "$unpack/pytorch-1.13.1/$f" "$cache/$f"
  done
  rm -rf "$unpack" "$apt/$name"
}

case "${1:-}" in
  fetch) fetch ;;
  run)
    shift
    fetch
    exec "${EMBER_PYTHON:-/usr/bin/python3}" python/pytorch_tests/run.py --tests "$tests" "$@"
    ;;
  *)
    echo "usage: bash tools/pytorch_tests.sh fetch | run [--torch=real] [runner arguments]" >&2
    exit 2
    ;;
esac
