"""Parity: the gaps the fiftieth port trial left open (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"core.caches.RETURN_VAL_TYPE"}

# inmemory_cache_maxsize_unit_tests: a cache test helper annotated with RETURN_VAL_TYPE
# imported from langchain_core.caches. That module has no __all__ and the alias reports
# the module of its origin (collections.abc), so the port table did not list it and the
# import stayed LangChain's.
_RETURN_VAL_TYPE = """
import typing

from langchain_core.caches import RETURN_VAL_TYPE, InMemoryCache
from langchain_core.outputs import Generation


def cache_item(i: int) -> tuple[str, str, RETURN_VAL_TYPE]:
    return f"prompt{i}", f"llm_string{i}", [Generation(text=f"text{i}")]


print(typing.get_origin(RETURN_VAL_TYPE), [a.__name__ for a in typing.get_args(RETURN_VAL_TYPE)])
cache = InMemoryCache(maxsize=1)
for i in (1, 2):
    cache.update(*cache_item(i))
print(cache.lookup("prompt1", "llm_string1"), cache.lookup("prompt2", "llm_string2"))
print(isinstance(cache_item(3)[2], typing.get_origin(RETURN_VAL_TYPE)))
"""


def test_the_cache_return_type_alias_ports() -> None:
    expected = _printed(_RETURN_VAL_TYPE)
    assert expected.splitlines()[0] == "<class 'collections.abc.Sequence'> ['Generation']"
    assert _printed(_ported(_RETURN_VAL_TYPE)) == expected
