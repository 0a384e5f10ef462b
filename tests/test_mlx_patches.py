"""nanoagent.mlx_patches: the installed mlx-lm has every internal we replace; a missing one fails loudly, naming the
symbol, the installed version and the supported range; replacements are undone, nested or after an error.

Pins issue 18: numpy_ops and shared_prefix used to swap mlx-lm internals with no check that they still exist.
Run: .venv/bin/python -m pytest tests/test_mlx_patches.py -q
"""

import nanoagent  # noqa: F401  (OpenBLAS before mlx)

import pytest
from mlx_lm.models import llama

from nanoagent import mlx_patches, numpy_ops


def test_the_installed_mlx_lm_passes_the_check():
    assert mlx_patches.llama() is llama
    mlx_patches.require(llama, ("scaled_dot_product_attention", "swiglu"))
    assert mlx_patches.supported(mlx_patches.installed_version())


def test_a_missing_symbol_names_itself_the_version_and_the_range(monkeypatch):
    monkeypatch.delattr(llama, "swiglu")
    for use in (mlx_patches.llama, lambda: mlx_patches.replaced(llama, swiglu=None).__enter__(),
                lambda: numpy_ops.numpy_ops().__enter__() if numpy_ops.active() else mlx_patches.llama()):
        with pytest.raises(mlx_patches.MlxLmMismatch) as e:
            use()
    message = str(e.value)
    assert numpy_ops._KERNELS == []
    assert "mlx_lm.models.llama.swiglu is missing" in message
    assert mlx_patches.installed_version() in message and ">=0.31,<0.33" in message
    assert llama.scaled_dot_product_attention is mlx_patches.own_attention()


def test_replace_and_restore_nested_and_after_an_error():
    own_sdpa, own_swiglu = llama.scaled_dot_product_attention, llama.swiglu
    with mlx_patches.replaced(llama, swiglu="outer"):
        with pytest.raises(RuntimeError):
            with mlx_patches.replaced(llama, swiglu="inner", scaled_dot_product_attention="x"):
                assert (llama.swiglu, llama.scaled_dot_product_attention) == ("inner", "x")
                assert mlx_patches.own_attention() is own_sdpa
                raise RuntimeError("boom")
        assert llama.swiglu == "outer" and llama.scaled_dot_product_attention is own_sdpa
    assert (llama.scaled_dot_product_attention, llama.swiglu) == (own_sdpa, own_swiglu)


def test_the_version_range_reads_versions():
    assert mlx_patches.supported("0.31.0") and mlx_patches.supported("0.32.2")
    assert not mlx_patches.supported("0.30.6") and not mlx_patches.supported("0.33.0")
    assert not mlx_patches.supported("(not installed)")
