#!/usr/bin/env bash
# The notool-gpu arms side by side on one GPU (session 33): the default recipe (train/configs/quality-cpu-full.yaml,
# 150 steps) on three data builds that differ only in the synthetic no_tool kind's weight (0.20, 0.30, 0.40).
# From the checkout's root on the GPU machine, with X holding scripts/gpu_bundle.sh's tarball as X/b/part.0 (built
# on data/b33) and the other two builds as X/b33-nt30.tar.xz and X/b33-nt40.tar.xz:
#   bash train/results/notool-gpu/sweep.sh X        # then: bash train/results/notool-gpu/sweep.sh X --pack SECONDS
# The first form starts the arms in the background and returns; --pack waits up to SECONDS for them and packs the
# results of every arm that finished (and the logs of any that did not) into $OUT/notool.tgz.
set -u
cd "$(dirname "$0")/../../.."
x="$1"
if [ "${2:-}" = "--pack" ]; then
  for _ in $(seq 1 $(( $3 / 5 ))); do [ -f /tmp/notool.done ] && break; sleep 5; done
  for f in /tmp/notool-arm-*.log; do echo "== $f"; tail -4 "$f"; done
  cp /tmp/notool-*-results.tgz /tmp/notool-*-train.log /tmp/notool-*-eval.log "$OUT"/ 2>/dev/null
  cp /tmp/notool-arm-*.log "$OUT"/ 2>/dev/null
  ls -la "$OUT"; nvidia-smi --query-gpu=memory.used --format=csv
  exit 0
fi
for nt in 30 40; do
  mkdir -p "data/b33-nt$nt" && xz -T0 -dc "$x/b33-nt$nt.tar.xz" | tar xf - -C "data/b33-nt$nt" || exit 1
done
if [ "${2:-}" = "--arms" ]; then
  export GPU_JOB_MEMORY_GB=40
  bash scripts/gpu_job.sh "$x/b" notool-nt20 150 train/configs/quality-cpu-full.yaml > /tmp/notool-arm-nt20.log 2>&1 &
  sleep 20   # the first arm unpacks the bundle under a lock; the others wait for it there
  for nt in 30 40; do
    bash scripts/gpu_job.sh "$x/b" "notool-nt$nt" 150 train/configs/quality-cpu-full.yaml --data "data/b33-nt$nt" \
      > "/tmp/notool-arm-nt$nt.log" 2>&1 &
  done
  wait
  touch /tmp/notool.done
  exit 0
fi
rm -f /tmp/notool.done
setsid nohup bash "train/results/notool-gpu/sweep.sh" "$x" --arms > /tmp/notool-sweep.log 2>&1 < /dev/null &
echo "notool-gpu: three arms started"
