"""A bounded load test of ``ragline serve`` on loopback: 32 concurrent clients, /retrieve
and streamed /ask requests against a 2,000-chunk store with a scripted model; every
request must succeed. The full-size run (10,000 chunks, 2,000 + 200 requests) is
``benchmarks/serve.py``, whose load driver this test runs at a smaller size."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [pytest.mark.network, pytest.mark.slow]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "serve.py"


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("serve_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_32_clients_get_every_answer(tmp_path: Path) -> None:
    bench = _benchmark()
    bench.build_store(tmp_path / "store", 2_000)
    with bench.store_server(tmp_path / "store") as url:
        result = bench.run_load(url, clients=32, retrieves=400, asks=40, limit=300)
    print()
    print(bench.format_load(result))
    assert result["errors"] == []
    assert (len(result["retrieve"]), len(result["ask"])) == (400, 40)
