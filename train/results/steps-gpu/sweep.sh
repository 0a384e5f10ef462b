#!/usr/bin/env bash
# The steps-gpu arms side by side on one GPU (session 35): the default recipe (train/configs/quality-cpu-full.yaml)
# on the default build, at 150 steps (seeds 1 and 2: the seed spread) and at 300 steps (seeds 0 and 1: the 2-hour
# CPU budget). Each arm skips the call threshold (--threshold-n 0): the model's own decisions are what is scored.
# From the checkout's root on the GPU machine, with scripts/gpu_bundle.sh's pieces (built on the default data) in X:
#   bash train/results/steps-gpu/sweep.sh X        # then: bash train/results/steps-gpu/sweep.sh X --pack SECONDS
# The first form starts the arms in the background and returns; --pack waits up to SECONDS for them and packs the
# results of every arm that finished (and the logs of any that did not) into $OUT/steps.tgz.
set -u
cd "$(dirname "$0")/../../.."
x="$1"
arms="s150-seed1:150:1 s150-seed2:150:2 s300-seed0:300:0 s300-seed1:300:1"
if [ "${2:-}" = "--pack" ]; then
  for _ in $(seq 1 $(( $3 / 5 ))); do [ -f /tmp/steps.done ] && break; sleep 5; done
  for f in /tmp/steps-arm-*.log; do echo "== $f"; tail -4 "$f"; done
  mkdir -p /tmp/steps-keep
  for arm in $arms; do
    n="steps-${arm%%:*}"
    cp "/tmp/$n-results.tgz" "/tmp/$n-train.log" "/tmp/$n-eval.log" /tmp/steps-keep/ 2>/dev/null
    cp "runs/$n/metrics.jsonl" "/tmp/steps-keep/$n-metrics.jsonl" 2>/dev/null
  done
  cp /tmp/steps-arm-*.log /tmp/steps-keep/ 2>/dev/null
  tar czf "$OUT/steps.tgz" -C /tmp steps-keep
  ls -la "$OUT" /tmp/steps-keep; nvidia-smi --query-gpu=memory.used --format=csv
  exit 0
fi
if [ "${2:-}" = "--arms" ]; then
  export GPU_JOB_MEMORY_GB=30
  for arm in $arms; do
    IFS=: read -r name steps seed <<< "$arm"
    bash scripts/gpu_job.sh "$x" "steps-$name" "$steps" train/configs/quality-cpu-full.yaml --seed "$seed" \
      --threshold-n 0 > "/tmp/steps-arm-$name.log" 2>&1 &
    sleep 2   # the first arm unpacks the bundle under a lock; the others wait for it there
  done
  wait
  touch /tmp/steps.done
  exit 0
fi
rm -f /tmp/steps.done
setsid nohup bash train/results/steps-gpu/sweep.sh "$x" --arms > /tmp/steps-sweep.log 2>&1 < /dev/null &
echo "steps-gpu: four arms started"
