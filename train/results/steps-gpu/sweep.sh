#!/usr/bin/env bash
# The steps-gpu arms (session 35) through scripts/gpu_sweep.sh: the default recipe (train/configs/quality-cpu-full.yaml)
# on the default build at 150 steps (seeds 1 and 2) and 300 steps (seeds 0 and 1), each without the call threshold.
# From the checkout's root on the GPU machine, with scripts/gpu_bundle.sh's pieces in X:
#   bash train/results/steps-gpu/sweep.sh X        # then, in each later call: bash scripts/gpu_sweep.sh pack steps 540
# The session's own run used an inline copy of this sweep (in git at 39a5378) with a single pack call, which lost
# three arms' suites; gpu_sweep.sh came out of that.
set -eu
cd "$(dirname "$0")/../../.."
GPU_JOB_MEMORY_GB=30 bash scripts/gpu_sweep.sh start "$1" steps train/configs/quality-cpu-full.yaml \
  s150-seed1:150:--seed=1,--threshold-n=0 s150-seed2:150:--seed=2,--threshold-n=0 \
  s300-seed0:300:--seed=0,--threshold-n=0 s300-seed1:300:--seed=1,--threshold-n=0
