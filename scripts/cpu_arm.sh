#!/usr/bin/env bash
# One arm of a quality comparison on this machine's CPU, start to finish: build the native ops if missing, train the
# quality recipe, export its Q8_0, and score the six whole BFCL suites through llama.cpp, one result file per suite.
# Run from the checkout's root:
#
#   bash scripts/cpu_arm.sh NAME [TRAIN_FLAG...]
#
# e.g. `bash scripts/cpu_arm.sh quality-cpu-b33-seed3 --seed 3 --threshold-n 0`, or an A/B arm on another build,
# `bash scripts/cpu_arm.sh prose50-seed1 --seed 1 --data data/prose-50 --threshold-n 0`. TRAIN_FLAGs go to train.dft
# after the config. Writes runs/NAME (the run), exports/NAME-q8_0.gguf, and OUT_DIR/toolcall_NAME-q8_0-SUITE.json
# labelled NAME-q8_0; logs go to runs/NAME-logs/. Resumable: run the same command again after an interruption and
# it goes on where it stopped (train.dft resumes from its last checkpoint; a finished export or suite is kept).
# Compare arms over their seeds with `python -m eval.compare A0-files,A1-files B0-files,B1-files`.
#
# Settings (environment): CPU_ARM_CONFIG (default train/configs/quality-cpu-full.yaml), CPU_ARM_SUITES (comma-
# separated; default the six whole suites), CPU_ARM_OUT (default eval/results/quality), PYTHON (default
# .venv/bin/python). On a 2-core machine the default recipe trains in 45-100 minutes (the machines differ) and the
# six suites take 40-55 more; run nothing else CPU-heavy beside it.
set -uo pipefail
[ $# -ge 1 ] && [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || {
  echo "usage: bash scripts/cpu_arm.sh NAME [TRAIN_FLAG...]   (NAME: letters, digits, '.', '_', '-')"; exit 2; }
name="$1"; shift
py="${PYTHON:-.venv/bin/python}"
config="${CPU_ARM_CONFIG:-train/configs/quality-cpu-full.yaml}"
suites="${CPU_ARM_SUITES:-simple_python,multiple,parallel,parallel_multiple,irrelevance,live_simple}"
out="${CPU_ARM_OUT:-eval/results/quality}"
run="runs/$name"; logs="runs/$name-logs"; gguf="exports/$name-q8_0.gguf"
[ -f "$config" ] || { echo "cpu_arm: no config $config (CPU_ARM_CONFIG)"; exit 2; }
mkdir -p "$logs" exports "$out"
say() { echo "cpu_arm $name: $* ($(date '+%F %T'))"; }

if [ -f "$run/summary.json" ]; then
  say "training already finished ($run/summary.json)"
else
  # a fresh checkout or worktree has no compiled kernels: without them the run is slower (and not the build the
  # committed arms trained with), so build them first where they are supported (about 30 s; see setup.sh)
  "$py" -m nanoagent.native.build --if-needed > "$logs/native.log" 2>&1 \
    || say "native ops not built (see $logs/native.log); training uses MLX's own ops"
  say "training: $py -m train.dft --config $config --run-dir $run --no-progress $* (log $logs/train.log)"
  "$py" -m train.dft --config "$config" --run-dir "$run" --no-progress "$@" >> "$logs/train.log" 2>&1 \
    || { rc=$?; say "training failed (rc $rc); the end of $logs/train.log:"; tail -5 "$logs/train.log"; exit $rc; }
fi

if [ -f "$gguf" ]; then
  say "export already written ($gguf)"
else
  say "export: $gguf (log $logs/export.log)"
  "$py" -m export.gguf --model "$run/model" --out "$gguf" > "$logs/export.log" 2>&1
  rc=$?  # 3: written, but the parity check warned (export/README.md); the GGUF is still scored
  if [ $rc -eq 3 ]; then
    say "export parity warned (see $logs/export.log); scoring it anyway"
  elif [ $rc -ne 0 ]; then
    say "export failed (rc $rc); the end of $logs/export.log:"; tail -5 "$logs/export.log"; exit $rc
  fi
fi

failed=0
IFS=, read -r -a suite_list <<< "$suites"
for suite in "${suite_list[@]}"; do
  result="$out/toolcall_$name-q8_0-$suite.json"
  if [ -f "$result" ]; then say "$suite already scored ($result)"; continue; fi
  say "scoring $suite (log $logs/eval-$suite.log)"
  "$py" -m eval.toolcall --model "$gguf" --label "$name-q8_0" --name "toolcall_$name-q8_0-$suite" \
    --max-tokens 256 --out-dir "$out" --suites "$suite" > "$logs/eval-$suite.log" 2>&1 \
    || { say "$suite failed (rc $?); see $logs/eval-$suite.log"; failed=$((failed + 1)); }
done
if [ $failed -ne 0 ]; then
  say "$failed of ${#suite_list[@]} suites failed; run the same command again to retry them"; exit 1
fi
say "done: ${#suite_list[@]} suites in $out/toolcall_$name-q8_0-*.json"
