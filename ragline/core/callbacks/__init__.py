"""Callbacks: handlers that observe runs, and the manager that reports to them.

See ``manager.py``'s docstring for how a runnable starts a run and reports its events.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BaseCallbackHandler": ".base",
    "AsyncCallbackHandler": ".base",
    "RetryState": ".base",
    "BaseCallbackManager": ".manager",
    "CallbackManager": ".manager",
    "AsyncCallbackManager": "._async_manager",
    "AsyncCallbackManagerForChainGroup": "._async_manager",
    "atrace_as_chain_group": "._async_manager",
    "CallbackManagerForChainGroup": ".manager",
    "trace_as_chain_group": ".manager",
    "Callbacks": ".manager",
    "dispatch_custom_event": "._custom_events",
    "adispatch_custom_event": "._custom_events",
    "BaseRunManager": ".run_managers",
    "CallbackManagerForChainRun": ".run_managers",
    "CallbackManagerForLLMRun": ".run_managers",
    "CallbackManagerForRetrieverRun": ".run_managers",
    "CallbackManagerForToolRun": ".run_managers",
    "AsyncCallbackManagerForChainRun": ".run_managers",
    "AsyncCallbackManagerForLLMRun": ".run_managers",
    "AsyncCallbackManagerForRetrieverRun": ".run_managers",
    "AsyncCallbackManagerForToolRun": ".run_managers",
    "StdOutCallbackHandler": ".stdout",
    "FileCallbackHandler": ".stdout",
    "print_text": ".stdout",
    "StreamingStdOutCallbackHandler": ".streaming",
    "AsyncIteratorCallbackHandler": ".streaming",
    "FinalStreamingStdOutCallbackHandler": ".streaming",
    "BaseTracer": ".tracers",
    "ConsoleCallbackHandler": ".console",
    "FunctionCallbackHandler": ".console",
    "RunCollectorCallbackHandler": ".tracers",
    "Run": ".tracers",
    "RootListenersHandler": ".tracers",
    "collect_runs": ".tracers",
    "wait_for_all_tracers": ".tracers",
    "OpenAICallbackHandler": ".usage",
    "UsageMetadataCallbackHandler": ".usage",
    "get_openai_callback": ".usage",
    "get_usage_metadata_callback": ".usage",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
