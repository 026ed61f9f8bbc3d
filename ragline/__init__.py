"""ragline: retrieval-augmented generation on one small Runnable core.

Public names live in the subpackages: ``ragline.core``, ``ragline.loaders``,
``ragline.splitters``, ``ragline.embeddings``, ``ragline.chat_models``,
``ragline.vectorstores``, ``ragline.retrievers``, ``ragline.chains``, ``ragline.indexing``.
"""

import os as _os

from ragline.core.exceptions import RaglineError

__version__ = "0.1.0"
__all__ = ["RaglineError", "__version__"]

if _os.environ.get("RAGLINE_TRACING"):  # =otel: trace every run (see ragline.tracing)
    from ragline.tracing import configure_from_environment as _configure_tracing

    _configure_tracing()
