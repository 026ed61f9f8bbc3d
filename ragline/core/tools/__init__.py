"""The tool interface and function-to-schema conversion.

``BaseTool`` (one hook, ``_run``), ``ArgsSchema`` (a tool's arguments as JSON Schema, and
their check), and ``convert_to_openai_tool`` / ``convert_to_openai_function`` (how a tool
is described to a model; ``bind_tools`` uses them). ``@tool``, ``StructuredTool``,
``Tool`` and ``create_retriever_tool`` live in :mod:`ragline.tools`.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "ArgsSchema": "._schema",
    "BaseTool": "._base",
    "InjectedToolArg": "._schema",
    "InjectedToolCallId": "._schema",
    "convert_pydantic_to_openai_function": "._convert",
    "create_schema_from_function": "._model_schema",
    "convert_pydantic_to_openai_tool": "._convert",
    "convert_to_openai_function": "._convert",
    "convert_to_openai_tool": "._convert",
    "tool_example_to_messages": "._convert",
    "is_tool_call": "._base",
    "parse_google_docstring": "._schema",
    "sync_run_manager": "._base",
    "type_to_json_schema": "._schema",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
