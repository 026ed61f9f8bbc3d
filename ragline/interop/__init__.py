"""ragline.interop: bridges to other frameworks' objects (optional extras).

``ragline.interop.langchain`` (extra ``langchain``) turns LangChain objects into
ragline ones and back: ``from_langchain`` and ``to_langchain``.
"""

from ragline.core._lazy import attach

_EXPORTS: dict[str, str] = {}

__all__: list[str] = []
__getattr__, __dir__ = attach(__name__, _EXPORTS)
