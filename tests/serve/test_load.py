"""A bounded load test of ``ragline serve`` on loopback, at the size issue 16 sets: 32
concurrent clients send 2,000 ``/retrieve`` requests and 200 streamed ``/ask`` requests
(a scripted model writing its answer a character at a time) to a server over a
10,000-chunk store. Every request must succeed; p50 / p99 latencies are printed (``-rP``
or ``-s`` shows them). The load driver is ``benchmarks/serve.py``'s, so the test and the
benchmark measure the same thing. About 30 s on a busy 2-core machine; the whole run is
bounded at 300 s (requests not sent by then count as errors)."""

from __future__ import annotations

import importlib.util
import os
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
    bench.build_store(tmp_path / "store", 10_000)
    with bench.store_server(tmp_path / "store") as url:
        result = bench.run_load(url, clients=32, retrieves=2_000, asks=200, limit=300)
    print(f"\nload: 32 clients, 10,000 chunks (load average {os.getloadavg()[0]:.1f})")
    print(bench.format_load(result))
    assert result["errors"] == []
    assert (len(result["retrieve"]), len(result["ask"])) == (2_000, 200)


def test_one_hostile_client_among_32(tmp_path: Path) -> None:
    """31 clients send 500 /retrieve requests alone, then while a 32nd sends the largest
    batch the server allows (100 MMR searches at k=100, fetch_k=1,000) again and again.
    Every request of both runs must succeed, and the hostile batches must have run at
    the same time (at least one, none refused); the p99 of the 31 is printed against
    the run without it (benchmarks/serve.py prints the full-size figures)."""
    bench = _benchmark()
    bench.build_store(tmp_path / "store", 10_000)
    with bench.store_server(tmp_path / "store") as url:
        result = bench.run_hostile(url, retrieves=500, limit=240)
    print(f"\none hostile client among 32 (load average {os.getloadavg()[0]:.1f})")
    print(bench.format_hostile(result))
    assert result["calm"]["errors"] == [] and result["hostile"]["errors"] == []
    assert len(result["calm"]["retrieve"]) == len(result["hostile"]["retrieve"]) == 500
    assert result["calm"]["hostile"] == [] and len(result["hostile"]["hostile"]) >= 1
