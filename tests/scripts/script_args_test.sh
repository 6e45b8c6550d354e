#!/usr/bin/env bash
# The bash scripts' arguments, hostile (issue 35, D14 and D24): an option
# without its value is a clear message and exit 2 (never bash's "unbound
# variable", exit 1); a checkout folder whose name has a space is registered
# under a valid engine name derived from it; scripts/bench/vs-llama-bench
# refuses an engine that is not the same build as a llama-bench it can make.
# Nothing is built or measured: --dry-run, and refusals before any work.
#   script_args_test.sh MOESWEEP WORKDIR
set -uo pipefail
MOESWEEP=$(realpath "$1")
WORK=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
rm -rf "$WORK" && mkdir -p "$WORK" || { echo "cannot make $WORK" >&2; exit 1; }
export MOESWEEP MOESWEEP_ENGINES="$WORK/registry" REGRESS_DIR="$WORK/regress"
export GIT_CEILING_DIRECTORIES="$WORK"  # the test's folders are in no git repository

# expect CODE TEXT COMMAND...: COMMAND exits CODE and its stderr+stdout holds TEXT.
expect() {
  local code=$1 text=$2 out rc
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  [[ $rc -eq $code ]] || fail "$* exited $rc, not $code: $out"
  [[ $out == *"$text"* ]] || fail "$* did not say '$text': $out"
  [[ $out != *"unbound variable"* ]] || fail "$*: bash's own error: $out"
}

regress=$root/scripts/regress
expect 2 "--base needs a value" "$regress" --base
expect 2 "--new needs a value" "$regress" --new
expect 2 "--baseline needs a value" "$regress" --baseline
expect 2 "--profile needs a value" "$regress" --profile
expect 2 "--base needs a value (got '--new', another option)" "$regress" --base --new pr
expect 2 "--base needs a value" "$regress" --base ""
expect 2 "unknown argument '--bse'" "$regress" --bse 3.21.1
# regress-ab, called without its five values (or an empty one).
expect 2 "needs MOESWEEP BASE_SPEC NEW_ENGINE PROFILE WORK" "$root/scripts/regress-ab" a b
expect 2 "(got 5 argument(s))" "$root/scripts/regress-ab" "$MOESWEEP" "" default ci-ab "$WORK"

# D24: a folder with a space (and other characters no engine name holds).
checkout="$WORK/my llama.cpp (pr 12)"
mkdir -p "$checkout"
expect 0 "would register the base engine: $MOESWEEP engine add checkout-my-llama.cpp--pr-12--nogit --llama-cpp $checkout" \
  "$regress" --base "$checkout" --dry-run
name=checkout-my-llama.cpp--pr-12--nogit
# moesweep's own check takes the derived name (no "is not an engine name").
expect 2 "no engine folder" "$MOESWEEP" engine remove "$name"
expect 0 "would register the base engine: $MOESWEEP engine add release-3.21.1 --release 3.21.1" \
  "$regress" --base 3.21.1 --dry-run
expect 2 "is no folder, release version (3.21.1) or registered engine name" \
  "$regress" --base "$WORK/no such folder" --dry-run
expect 0 "would run: $MOESWEEP sweep --profile ci-ab --engine pr,default" \
  "$regress" --base pr --dry-run
expect 2 "base and new are the same engine" "$regress" --base pr --new pr --dry-run

# vs-llama-bench: like with like, or not at all; never a build in build/.
vs=$root/scripts/bench/vs-llama-bench
stamp() { stat -c %Y "$root/build/bin/llama-bench" 2>/dev/null || echo none; }
before=$(stamp)
expect 2 "--engine needs a value" "$vs" --engine
expect 2 "no engine 'native' is registered; register one built from source: $MOESWEEP engine add native --release 3.21.1 --from-source" "$vs"
expect 2 "engine 'default' (the worker built with this moesweep) has no llama-bench of its own build" \
  "$vs" --engine default
expect 2 "--fa is on or off" "$vs" --fa maybe
[[ $(stamp) == "$before" ]] || fail "vs-llama-bench built llama-bench in build/"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all script argument checks passed"
