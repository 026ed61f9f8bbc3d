"""Parity: ``RunnableMap``, LangChain's older name of ``RunnableParallel``.

In both libraries the name is the same class as ``RunnableParallel``; a program that
builds its map under the old name gets the same outputs, name and printed form.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables import RunnableMap as LCRunnableMap
from langchain_core.runnables import RunnableParallel as LCRunnableParallel

from ragline.core.runnables import RunnableLambda, RunnableMap, RunnableParallel

COVERS = {"core.runnables.RunnableMap"}


def test_runnable_map_is_runnable_parallel():
    assert LCRunnableMap is LCRunnableParallel
    assert RunnableMap is RunnableParallel


def test_a_map_built_under_the_old_name():
    lc = LCRunnableMap(
        double=LCRunnableLambda(lambda x: x * 2), text=LCRunnableLambda(lambda x: f"<{x}>")
    )
    rl = RunnableMap(
        double=RunnableLambda(lambda x: x * 2), text=RunnableLambda(lambda x: f"<{x}>")
    )
    assert rl.invoke(3) == lc.invoke(3)
    assert rl.batch([1, 2]) == lc.batch([1, 2])
    assert list(rl.stream(4)) == list(lc.stream(4))
    assert rl.get_name() == lc.get_name()
    assert type(rl).__name__ == type(lc).__name__ == "RunnableParallel"
