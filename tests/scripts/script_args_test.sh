#!/usr/bin/env bash
# The bash scripts' arguments, hostile (issue 35, D14 and D24; issue 44, items
# 10-12): an option without its value is a clear message and exit 2 (never
# bash's "unbound variable", exit 1); a checkout folder whose name has a space
# is registered under a valid engine name derived from it (by moesweep gate,
# which scripts/regress runs); scripts/bench/vs-llama-bench
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
expect 2 "--base: 1 required" "$regress" --base
expect 2 "--new: 1 required" "$regress" --new
expect 2 "--baseline: 1 required" "$regress" --baseline
expect 2 "--profile: 1 required" "$regress" --profile
expect 2 "--base: '--new' is another option, not this one's value" "$regress" --base --new
expect 2 "--base: '--new' is another option, not this one's value" "$regress" --base --new pr
expect 2 "--base: an empty value" "$regress" --base ""
expect 2 "--bse" "$regress" --bse 3.21.1

# D24: a folder with a space (and other characters no engine name holds).
checkout="$WORK/my llama.cpp (pr 12)"
mkdir -p "$checkout"
expect 0 "would register: moesweep engine add checkout-my-llama.cpp--pr-12--nogit --llama-cpp $checkout" \
  "$regress" --base "$checkout" --dry-run
name=checkout-my-llama.cpp--pr-12--nogit
# moesweep's own check takes the derived name (no "is not an engine name").
expect 2 "no engine folder" "$MOESWEEP" engine remove "$name"
expect 0 "would register: moesweep engine add release-3.21.1 --release 3.21.1" \
  "$regress" --base 3.21.1 --dry-run
expect 2 "is no folder, release version (3.21.1) or registered engine name" \
  "$regress" --base "$WORK/no such folder" --dry-run
expect 0 "would run: moesweep sweep --profile ci-ab --engine pr,default" \
  "$regress" --base pr --dry-run
expect 2 "base and new are the same engine" "$regress" --base pr --new pr --dry-run

# Issue 44, items 10-12: engine-gate and count-gate check every option's value
# at once (nothing is registered or measured before a refusal).
for script in engine-gate count-gate; do
  bench=$root/scripts/bench/$script
  expect 2 "$script: --tries needs a value" "$bench" --tries
  expect 2 "$script: --profile needs a value" "$bench" --profile
  expect 2 "$script: --tries needs a value (got '--profile', another option)" "$bench" --tries --profile x
  expect 2 "$script: --tries '0' is not a whole number of 1 or more" "$bench" --tries 0
  expect 2 "$script: --tries 'abc' is not a whole number of 1 or more" "$bench" --tries abc
  expect 2 "$script: unknown option '--bogus'" "$bench" --bogus
done
expect 2 "engine-gate: --out needs a value" "$root/scripts/bench/engine-gate" --out
expect 2 "engine-gate: --co-runner needs a value" "$root/scripts/bench/engine-gate" --co-runner
expect 2 "count-gate: --work 'abc' is not a whole number of 1 or more" \
  "$root/scripts/bench/count-gate" --work abc
expect 2 "count-gate: --work needs a value" "$root/scripts/bench/count-gate" --work
[[ ! -d $MOESWEEP_ENGINES/aa ]] || fail "a refused bench script registered an engine"

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
