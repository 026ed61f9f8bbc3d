"""ragline.tools: ``@tool``, ``StructuredTool``, ``Tool``, ``BaseTool`` subclasses,
``create_retriever_tool``; ``load_mcp_tools`` (any MCP server's tools, over stdio or HTTP).

The tool interface itself (``BaseTool``, argument schemas, ``convert_to_openai_tool``)
is in :mod:`ragline.core.tools`; it is re-exported here under LangChain's names.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "ArgsSchema": "ragline.core.tools",
    "BaseTool": "ragline.core.tools",
    "InjectedToolArg": "ragline.core.tools",
    "InjectedToolCallId": "ragline.core.tools",
    "ToolException": "ragline.core.exceptions",
    "ToolValidationError": "ragline.core.exceptions",
    "convert_to_openai_function": "ragline.core.tools",
    "convert_to_openai_tool": "ragline.core.tools",
    "create_schema_from_function": "ragline.core.tools",
    "RETRIEVER_INPUT": "._retriever",
    "StructuredTool": "ragline.core.tools._function",
    "Tool": "ragline.core.tools._function",
    "create_retriever_tool": "._retriever",
    "CopyFileTool": "._files",
    "DeleteFileTool": "._files",
    "FileManagementToolkit": "._files",
    "FileSearchTool": "._files",
    "ListDirectoryTool": "._files",
    "MoveFileTool": "._files",
    "ReadFileTool": "._files",
    "WriteFileTool": "._files",
    "render_text_description": "._render",
    "render_text_description_and_args": "._render",
    "tool": "._decorator",
    "load_mcp_tools": "._mcp",
    "MCPTools": "._mcp",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
