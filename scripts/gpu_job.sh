#!/usr/bin/env bash
# On an NVIDIA machine with no package index: unpack a scripts/gpu_bundle.sh bundle, train the quality recipe on its
# data, score whole BFCL suites with MLX on the GPU, export the Q8_0, and pack what is worth keeping.
#
#   bash scripts/gpu_job.sh BUNDLE_DIR NAME STEPS [CONFIG [TRAIN_FLAG...]]   # CONFIG: train/configs/quality-gpu.yaml
#
# TRAIN_FLAGs go to train.dft after the config (an arm: `--count-weight 3`, `--seed 1`). scripts/gpu_sweep.sh runs
# several arms in the background and collects them over several device calls. Arms may run side by side on
# one GPU (`bash scripts/gpu_job.sh B arm-a 300 & bash scripts/gpu_job.sh B arm-b 300 CONFIG --seed 1 & wait`): the
# unpacking runs once under a lock. Give each arm a share of the GPU's memory with GPU_JOB_MEMORY_GB=N (MLX's memory
# limit N GB and a 2 GB buffer cache per process): without it each process caches as if it had the GPU alone, and four
# arms on an H200 ran out of memory (train/results/lr-gpu/README.md). GPU_JOB_SUITES=a,b scores those suites instead
# of the six. Run from the checkout's root. Writes runs/NAME
# (resumable: run it again after an interruption), then /tmp/NAME-results.tgz (config, metrics, summary, logs,
# threshold, eval JSON) and /tmp/NAME-q8_0.gguf with its md5 and 16 MB pieces /tmp/NAME-q8_0.gguf.N beside it, for
# copiers with a size limit.
# Measured on an H200 (train/results/quality-gpu-300-obj/README.md): setup 5 s, 300 steps 442 s with the checks,
# six suites 120 s, 562 s in all. A device call carries 64 MiB with the checkout: scripts/gpu_bundle.sh's pieces.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: bash scripts/gpu_job.sh BUNDLE_DIR NAME STEPS [CONFIG [TRAIN_FLAG...]]"; exit 2; }
bundle="$1"; name="$2"; steps="$3"; config="${4:-train/configs/quality-gpu.yaml}"
shift $(( $# < 4 ? $# : 4 )); train_flags=("$@")
run="runs/$name"
site=/tmp/nanoagent-site
t0=$(date +%s)

mkdir -p "$(dirname "$site")"
exec 9>"$site.lock"; flock 9   # a second arm waits here while the first unpacks
if [ ! -f "$site/.done" ]; then
  ls "$bundle"/part.* >/dev/null 2>&1 || { echo "gpu_job: no $bundle/part.* (made by scripts/gpu_bundle.sh)"; exit 1; }
  unpack="$(mktemp -d)"
  cat "$bundle"/part.* | tar xf - -C "$unpack" || { echo "gpu_job: $bundle/part.* do not make a tarball"; exit 1; }
  mkdir -p "$site" data/default
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "$unpack"/whl/*.whl || exit 1
  xz -T0 -dc "$unpack/mlxcuda.tar.xz" | tar xf - -C "$site" || exit 1
  xz -T0 -dc "$unpack/data.tar.xz" | tar xf - -C data/default || exit 1
  rm -rf "$unpack"
  touch "$site/.done"
fi
flock -u 9
if [ -n "${GPU_JOB_MEMORY_GB:-}" ]; then  # read by every Python process of this job at start-up
  [[ "$GPU_JOB_MEMORY_GB" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_job: GPU_JOB_MEMORY_GB must be whole GB"; exit 2; }
  printf 'import mlx.core as mx\nmx.set_memory_limit(%d << 30)\nmx.set_cache_limit(2 << 30)\n' "$GPU_JOB_MEMORY_GB" \
    > "$site/sitecustomize.py"
else
  rm -f "$site/sitecustomize.py"  # a limit left by an earlier job on this machine
fi
export PYTHONPATH="$site:$PWD" PYTHONUNBUFFERED=1 NANOAGENT_OPENBLAS=off NANOAGENT_CACHE=/tmp/nacache HF_HUB_OFFLINE=1
python3 -c "import mlx.core as mx; assert mx.cuda.is_available(), 'MLX sees no CUDA device'; print('gpu_job: mlx', mx.__version__, 'on', mx.default_device())" || exit 1
echo "gpu_job: setup took $(( $(date +%s) - t0 )) s"

python3 -m train.dft --config "$config" --run-dir "$run" --steps "$steps" --no-progress "${train_flags[@]}" \
  > "/tmp/$name-train.log" 2>&1
rc=$?; echo "gpu_job: train rc $rc at $(( $(date +%s) - t0 )) s"; tail -5 "/tmp/$name-train.log"
[ $rc -eq 0 ] || exit $rc

python3 -m export.gguf --model "$run/model" --out "/tmp/$name-q8_0.gguf" --no-check > "/tmp/$name-export.log" 2>&1 &
export_pid=$!
python3 -m eval.toolcall --model "$run/model" --batch-size 64 --max-tokens 256 --out-dir "/tmp/$name-eval" \
  --label "$name-mlx" --name "toolcall_$name-mlx-whole" \
  --suites "${GPU_JOB_SUITES:-irrelevance,simple_python,multiple,parallel,parallel_multiple,live_simple}" \
  > "/tmp/$name-eval.log" 2>&1
echo "gpu_job: eval rc $? at $(( $(date +%s) - t0 )) s"
wait $export_pid; echo "gpu_job: export rc $?"

keep="/tmp/$name-results"
mkdir -p "$keep"
cp "$run"/metrics.jsonl "$run"/summary.json "$run"/config.yaml "$run"/validity.json "$run"/*.png "$keep"/ 2>/dev/null
cp "$run"/model/call_threshold.json "$run"/model/prompt_format.json "/tmp/$name"-*.log "/tmp/$name-eval"/*.json "/tmp/$name-q8_0.export.json" "$keep"/ 2>/dev/null
tar czf "/tmp/$name-results.tgz" -C /tmp "$name-results"
(cd /tmp && md5sum "$name-q8_0.gguf" > "$name-q8_0.gguf.md5" && split -b 16000000 -d -a 1 "$name-q8_0.gguf" "$name-q8_0.gguf.")
ls -l "/tmp/$name-results.tgz" /tmp/"$name"-q8_0.gguf*
echo "gpu_job: done in $(( $(date +%s) - t0 )) s"
