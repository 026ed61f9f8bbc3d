"""Runnables: the protocol (``base``) and one small module per way of combining them."""

from ragline.core._lazy import attach

_EXPORTS = {
    "Runnable": ".base",
    "Input": ".base",
    "Output": ".base",
    "RunnableSerializable": ".serializable",
    "add_chunks": ".runs",
    "AddableDict": ".runs",
    "coerce_to_runnable": ".base",
    "RunnableSequence": ".sequence",
    "RunnableParallel": ".parallel",
    "RunnableMap": ".parallel",
    "RouterRunnable": ".router",
    "RouterInput": ".router",
    "RunnableLambda": ".lambdas",
    "RunnableGenerator": ".lambdas",
    "chain": ".lambdas",
    "RunnablePassthrough": ".passthrough",
    "RunnableAssign": ".passthrough",
    "RunnablePick": ".passthrough",
    "RunnableBinding": ".binding",
    "RunnableBindingBase": ".binding",
    "RunnableEach": ".each",
    "RunnableEachBase": ".each",
    "RunnableRetry": ".retry",
    "RunnableWithFallbacks": ".fallbacks",
    "RunnableBranch": ".branch",
    "ConfigurableField": ".configurable",
    "ConfigurableFieldMultiOption": ".configurable",
    "ConfigurableFieldSingleOption": ".configurable",
    "ConfigurableFieldSpec": ".configurable",
    "RunnableWithMessageHistory": ".history",
    "RunnableConfigurableFields": ".configurable",
    "RunnableConfigurableAlternatives": ".configurable",
    "Graph": ".graph",
    "Node": ".graph",
    "Edge": ".graph",
    "CurveStyle": ".graph",
    "NodeStyles": ".graph",
    "RunLog": ".log",
    "RunLogPatch": ".log",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
