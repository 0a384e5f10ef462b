#!/usr/bin/env bash
# The two lr-gpu arms side by side on one GPU, from the checkout's root, after scripts/gpu_bundle.sh's pieces were
# copied to BUNDLE (default /tmp/gb):   bash train/results/lr-gpu/sweep.sh [BUNDLE]
# Session 30 ran this with the two limits written into the job's sitecustomize.py by hand; GPU_JOB_MEMORY_GB=40 now
# writes the same file.
bundle="${1:-/tmp/gb}"
for lr in 1e-4 3e-4; do
  GPU_JOB_MEMORY_GB=40 bash scripts/gpu_job.sh "$bundle" cpu-lr$lr 150 train/configs/quality-cpu-full.yaml \
    --learning-rate $lr > /tmp/arm-$lr.log 2>&1 &
  sleep 1
done
wait
