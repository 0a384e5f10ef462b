#!/usr/bin/env bash
# Several scripts/gpu_job.sh arms side by side on one GPU, run in the background so that a device call can return
# while they train and later calls can collect what has finished. Run from the checkout's root on the GPU machine:
#
#   bash scripts/gpu_sweep.sh start BUNDLE_DIR PREFIX CONFIG ARM...   # ARM: NAME:STEPS[:FLAG,FLAG...]
#   bash scripts/gpu_sweep.sh pack PREFIX SECONDS                     # then again until it says "all done"
#
# e.g. `start /tmp/x seeds train/configs/quality-cpu-full.yaml s1:150:--seed=1 long:300 lr:150:--learning-rate=1e-4`.
# Each arm is `gpu_job.sh BUNDLE_DIR PREFIX-NAME STEPS CONFIG FLAG...` (writes runs/PREFIX-NAME and /tmp/PREFIX-NAME-*).
# GPU_JOB_MEMORY_GB (each arm's MLX memory limit) defaults to 120 / the number of arms; GPU_JOB_SUITES passes through.
# `pack` waits up to SECONDS for the arms, then writes $OUT/PREFIX.tgz: the results of every finished arm and the
# metrics and logs of the others, and prints each arm's state. It can be called as often as needed.
# Sizing (train/results/steps-gpu/README.md, an H200, four arms): a 150-step arm of quality-cpu-full.yaml took 389 s
# to its saved model (119 s of steps) and 186 s more for the six suites; 300 steps took 205 s of steps. A device
# call lasts at most 600 s and the machine goes back 30 s after a call ends, so give `pack` at most ~540 s and call
# it again at once while arms remain.
set -u
mode="${1:-}"
case "$mode" in
  start)
    [ $# -ge 5 ] || { echo "usage: bash scripts/gpu_sweep.sh start BUNDLE_DIR PREFIX CONFIG ARM..."; exit 2; }
    bundle="$2"; prefix="$3"; config="$4"; shift 4
    state="/tmp/$prefix-sweep"
    rm -rf "$state"; mkdir -p "$state"
    export GPU_JOB_MEMORY_GB="${GPU_JOB_MEMORY_GB:-$(( 120 / $# ))}"
    for arm in "$@"; do
      IFS=: read -r name steps rest <<< "$arm"; flags=()
      [[ "$steps" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_sweep: arm $arm: give NAME:STEPS[:FLAG,...]"; exit 2; }
      [ -n "$rest" ] && IFS=, read -r -a flags <<< "$rest"
      echo "$name" >> "$state/arms"
      setsid nohup bash -c 'bash scripts/gpu_job.sh "$@" > "$0.log" 2>&1; echo $? > "$0.rc"' "$state/$name" \
        "$bundle" "$prefix-$name" "$steps" "$config" "${flags[@]}" < /dev/null > /dev/null 2>&1 &
      sleep 2  # the first arm unpacks the bundle under gpu_job's lock; the others wait for it there
    done
    echo "gpu_sweep: started $(wc -l < "$state/arms") arms of $prefix, ${GPU_JOB_MEMORY_GB} GB each"
    ;;
  pack)
    [ $# -eq 3 ] || { echo "usage: bash scripts/gpu_sweep.sh pack PREFIX SECONDS"; exit 2; }
    prefix="$2"; state="/tmp/$prefix-sweep"
    [ -f "$state/arms" ] || { echo "gpu_sweep: no sweep $prefix here (start it first)"; exit 1; }
    deadline=$(( $(date +%s) + $3 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
      left=0; while read -r name; do [ -f "$state/$name.rc" ] || left=$((left + 1)); done < "$state/arms"
      [ "$left" -eq 0 ] && break
      sleep 5
    done
    keep="/tmp/$prefix-keep"; rm -rf "$keep"; mkdir -p "$keep"
    left=0
    while read -r name; do
      run="$prefix-$name"
      if [ -f "$state/$name.rc" ]; then
        echo "== $name: done, rc $(cat "$state/$name.rc")"
        cp "/tmp/$run-results.tgz" "$keep/" 2>/dev/null
      else
        left=$((left + 1)); echo "== $name: running"
        cp "runs/$run/metrics.jsonl" "$keep/$run-metrics.jsonl" 2>/dev/null
        cp "/tmp/$run-train.log" "/tmp/$run-eval.log" "$keep/" 2>/dev/null
      fi
      tail -3 "$state/$name.log"; cp "$state/$name.log" "$keep/$run-job.log"
    done < "$state/arms"
    tar czf "$OUT/$prefix.tgz" -C /tmp "$prefix-keep"
    ls -l "$OUT/$prefix.tgz"
    [ "$left" -eq 0 ] && echo "gpu_sweep: all done" || echo "gpu_sweep: $left arm(s) still running: call pack again"
    ;;
  *)
    echo "usage: bash scripts/gpu_sweep.sh start BUNDLE_DIR PREFIX CONFIG ARM... | pack PREFIX SECONDS"; exit 2 ;;
esac
