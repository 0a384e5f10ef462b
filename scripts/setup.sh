#!/usr/bin/env bash
# Set up nanoagent on a fresh machine: system packages (Linux), a virtual environment in .venv, the project.
#
#   bash scripts/setup.sh          # runtime dependencies
#   bash scripts/setup.sh --dev    # plus test tools (and chromium on Linux, for the HTML report's browser test)
#
# Linux: installs OpenBLAS (MLX's matmuls are ~40x slower without it) and bubblewrap (the agent's sandbox) with
# apt-get when they are missing (as root, or through sudo). macOS needs neither. llama-cpp-python has no Linux
# wheels and compiles llama.cpp on first install (about 6 minutes on 2 cores; pip caches the result).
# Re-running is cheap: nothing is reinstalled that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

extra=""
[ "${1:-}" = "--dev" ] && extra="[dev]"
PYTHON="${PYTHON:-python3}"

"$PYTHON" - <<'PY' || { echo "nanoagent needs Python >= 3.10 (set PYTHON=/path/to/python3.x)"; exit 1; }
import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)
PY

if [ "$(uname -s)" = "Linux" ]; then
  need=()
  ls /usr/lib/*-linux-gnu/openblas-pthread/libopenblas.so.0 >/dev/null 2>&1 || need+=(libopenblas0-pthread)
  command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
  if [ ${#need[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
      sudo=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
      echo "setup: installing system packages: ${need[*]}"
      $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null \
        || echo "setup: could not install ${need[*]}; install them by hand (training is slow without OpenBLAS)"
    else
      echo "setup: please install OpenBLAS and bubblewrap with your package manager (${need[*]})"
    fi
  fi
  # --dev: Debian's chromium, the headless browser of tests/test_eval_html.py (skipped without it). Its own
  # apt-get call: where no package has that name (Ubuntu's is a snap) the packages above still install.
  if [ -n "$extra" ] && [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1; then
      sudo=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
      echo "setup: installing chromium (the HTML report's browser test)"
      $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null \
        || echo "setup: could not install chromium; the HTML report's browser test will be skipped"
    else
      echo "setup: no apt-get: install chromium by hand for the HTML report's browser test (skipped without it)"
    fi
  fi
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=".venv/.nanoagent-installed${extra}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing Python packages into .venv (first time: llama-cpp-python compiles llama.cpp, ~6 min)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extra}"
  # BFCL's data files; its package pins numpy 1.26 (gguf needs newer), so no dependencies: we only read its data.
  .venv/bin/python -m pip install -q --no-deps "bfcl-eval==2026.3.23"
  touch "$stamp"
fi
if [ "$(uname -s)" = "Linux" ] && [ "$(uname -m)" = "x86_64" ] && grep -qw amx_int8 /proc/cpuinfo \
   && .venv/bin/python -c "import sys, llama_cpp; sys.exit('AMX_INT8 = 1' not in llama_cpp.llama_print_system_info().decode())"; then
  # On CPUs with AMX (Intel Sapphire Rapids and later) a native llama.cpp build multiplies Q8_0 weights through its
  # AMX path, which segfaults on the first prompt of more than one token (seen here with llama-cpp-python 0.3.36;
  # llama.cpp issue 20824). Rebuild once with the same AVX-512 kernels and no AMX (about 4 minutes on 2 cores).
  echo "setup: this CPU has AMX; rebuilding llama-cpp-python without its AMX kernels (they crash on Q8_0 prompts)"
  version=$(.venv/bin/python -c "import llama_cpp; print(llama_cpp.__version__)")
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_BF16=ON" \
    .venv/bin/python -m pip install -q --no-cache-dir --force-reinstall --no-deps "llama-cpp-python==$version"
fi
if [ "$(uname -s)" = "Linux" ] && [ "$(uname -m)" = "x86_64" ]; then
  # nanoagent/native: vectorised softmax, SwiGLU and logsumexp for MLX on the CPU (faster training), compiled
  # against this MLX; about a minute, skipped when a build for it exists. Without it MLX's own ops run.
  .venv/bin/python -m nanoagent.native.build --if-needed \
    || echo "setup: the native ops did not build (see above); training runs MLX's own, slower ops"
fi
echo "setup: ready (.venv)"
