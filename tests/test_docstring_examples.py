"""Every ``>>>`` example in ragline's docstrings runs and prints what it shows.

The vectorstores modules whose examples assume a small store are run by
tests/vectorstores/test_docs.py with that store; every other module is run here, as
``doctest`` runs a module: its own globals, nothing added.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ragline
from tests.vectorstores.test_docs import MODULES as STORE_MODULES

_WITH_A_STORE = {f"ragline.vectorstores.{name}" for name in STORE_MODULES}


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(ragline.__path__, "ragline."):
        if info.name.endswith("__main__") or info.name in _WITH_A_STORE:
            continue
        module = importlib.import_module(info.name)
        if any(test.examples for test in doctest.DocTestFinder().find(module)):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_the_modules_with_examples_are_found() -> None:
    # the package's examples are spread over well over a hundred modules; a finder that
    # lost them (a lazy module's names, say) would make the test below pass on nothing
    assert len(MODULES) > 100
    assert "ragline.pipelines" in MODULES and "ragline.core._json_schema" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    tests = doctest.DocTestFinder().find(importlib.import_module(name))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)  # examples marked +SKIP (a server) not run
    assert result.failed == 0, f"{result.failed} of {result.attempted} example(s) failed in {name}"
