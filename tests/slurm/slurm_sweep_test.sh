#!/usr/bin/env bash
# End to end under a real single-node Slurm (tests/slurm/local_slurm.sh):
#   moesweep plan --shards 3 -> moesweep slurm > job.sh -> sbatch job.sh
# then waits (bounded) for the array and the merge job and checks that the
# merged run holds exactly the plan's points. Exit 77 (ctest: skipped) when
# Slurm cannot start here; the daemons it started are stopped on any exit.
#   slurm_sweep_test.sh MOESWEEP WORKDIR
set -uo pipefail
MOESWEEP=$(realpath "$1")
WORK=$2
LIMIT=${MOESWEEP_SLURM_TEST_LIMIT:-420}  # seconds for the jobs: a bound, not a timing check
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=local_slurm.sh
source "$here/local_slurm.sh"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/plan/logs/*.out; do [[ -f $f ]] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot make $WORK"
trap 'local_slurm_stop "$WORK/slurm"' EXIT
local_slurm_start "$WORK/slurm"
rc=$?
((rc == 0)) || exit "$rc"  # 77: the reason is printed above

# A tiny-twin sweep of three context groups (the ci profile has one, and a
# context group is never split), one repetition to keep the test short.
P=$WORK/plan
"$MOESWEEP" plan --profile ci --ubatch-size 128,256,512 --depths 0,512 -r 1 -n 16 \
  --shards 3 --out "$P" || fail "moesweep plan"
"$MOESWEEP" slurm "$P" >"$WORK/job.sh" || fail "moesweep slurm"
for want in '^#SBATCH --array="0-2"$' '^#SBATCH --exclusive$' '^#SBATCH --cpus-per-task="2"$' \
  'afterany:' 'sweep --shard'; do
  grep -qE -- "$want" "$WORK/job.sh" || fail "job.sh lacks $want"
done

cd "$WORK" || fail "cd $WORK"
array=$(sbatch --parsable job.sh) || fail "sbatch job.sh"
echo "submitted array job $array"
deadline=$((SECONDS + LIMIT))
# Done when the merge has written its run and nothing of ours is queued.
until [[ -f $P/merged/meta.json && -z $(squeue -h -o %i 2>/dev/null) ]]; do
  ((SECONDS < deadline)) || { squeue >&2; fail "jobs not done within $LIMIT s"; }
  sleep 2
done
echo "jobs done after ${SECONDS} s"

python3 - "$P" <<'PY' || fail "merged run does not match the plan"
import json, sys, pathlib
p = pathlib.Path(sys.argv[1])
plan = json.loads((p / "plan.json").read_text())
planned = set()
for i in range(plan["shard_count"]):
    shard = json.loads((p / f"shard-{i}.json").read_text())
    assert shard["plan_id"] == plan["plan_id"]
    idx = {pt["index"] for pt in shard["points"]}
    assert not (idx & planned), f"shard {i} repeats points {idx & planned}"
    planned |= idx
assert planned == set(range(plan["points"])), "shards do not cover the plan"
meta = json.loads((p / "merged" / "meta.json").read_text())
recs = [json.loads(l) for l in (p / "merged" / "records.jsonl").read_text().splitlines() if l]
got = [r["point"] for r in recs]
assert sorted(got) == sorted(planned), f"merged points {sorted(got)} != planned {sorted(planned)}"
assert all(r["ok"] for r in recs), "failed points in the merged run"
assert meta["merge"]["complete"] and meta["status"] == "complete", meta["merge"]
assert len(meta["merge"]["sources"]) == plan["shard_count"]
ids = {s["node"]["slurm"]["SLURM_ARRAY_JOB_ID"] for s in meta["merge"]["sources"]}
assert len(ids) == 1, ids
print(f"merged run: {len(recs)} points of plan {plan['plan_id']} from {plan['shard_count']} shards")
PY
"$MOESWEEP" report "$P/merged" --db "$P/moesweep.sqlite" --no-plots >/dev/null || fail "moesweep report on the merged run"
echo "PASS"
