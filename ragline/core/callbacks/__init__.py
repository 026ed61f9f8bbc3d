"""Callbacks: handlers that observe runs, and the manager that reports to them.

See ``manager.py``'s docstring for how a runnable starts a run and reports its events.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BaseCallbackHandler": ".base",
    "AsyncCallbackHandler": ".base",
    "RetryState": ".base",
    "CallbackManager": ".manager",
    "BaseRunManager": ".manager",
    "CallbackManagerForChainRun": ".manager",
    "CallbackManagerForLLMRun": ".manager",
    "CallbackManagerForRetrieverRun": ".manager",
    "StdOutCallbackHandler": ".stdout",
    "RunCollectorCallbackHandler": ".tracers",
    "Run": ".tracers",
    "RootListenersHandler": ".tracers",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
