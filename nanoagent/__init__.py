"""nanoagent: the library the pipeline's stages share (record format, renderer, parser, model loading, agent).

Importing this package first makes MLX use OpenBLAS on Linux (see nanoagent/blas.py) and lets glibc's malloc reuse
freed blocks (nanoagent/cpu_memory.py), so every entry point and test starts with `import nanoagent` before anything
imports mlx. It also releases the main thread's MLX streams at exit (nanoagent/mlx_streams.py).
"""

import os

from nanoagent.blas import use_openblas
from nanoagent.cpu_memory import keep_freed_memory
from nanoagent.mlx_streams import release_at_exit

# transformers warns at import that PyTorch is missing; we never use torch models, so keep its log to errors.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

use_openblas()
keep_freed_memory()
release_at_exit()

__version__ = "0.1.0"
