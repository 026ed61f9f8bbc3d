"""``load_mcp_tools``: the tools of any MCP server as ragline tools.

The server is a command to start (its stdio) or a Streamable HTTP URL. One connection is
opened and kept by a background thread running its own event loop, so the tools work
from sync code (``invoke``, ``AgentExecutor.invoke``) and from any event loop
(``ainvoke``, ``astream_events``) alike, and calls made at the same time share it.
The official ``mcp`` SDK comes with the ``mcp`` extra (``pip install 'ragline[mcp]'``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shlex
import threading
import weakref
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any

from ragline.core import InvalidInputError
from ragline.core._optional import require
from ragline.core.exceptions import ToolException

__all__ = ["MCPTools", "load_mcp_tools"]

DEFAULT_TIMEOUT = 60.0


class _Connection:
    """An MCP client session held open in a thread of its own until :meth:`close`."""

    def __init__(self, target: Any, *, timeout: float) -> None:
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self._target = target
        self._ready: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="ragline-mcp", daemon=True)
        self._thread.start()
        try:
            self.client = self._ready.result(timeout)
        except concurrent.futures.TimeoutError:
            self.close()
            raise TimeoutError(f"the MCP server did not answer within {timeout:g} s") from None
        except BaseException:
            self._thread.join(5)
            raise

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._hold())
        finally:
            self.loop.close()

    async def _hold(self) -> None:
        from mcp import Client

        self._stop = asyncio.Event()
        try:
            async with Client(self._target, read_timeout_seconds=self.timeout) as client:
                self._ready.set_result(client)
                await self._stop.wait()
        except BaseException as err:
            if not self._ready.done():
                self._ready.set_exception(_connect_error(err))
            elif not isinstance(err, Exception):
                raise

    def submit(self, coroutine: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        if self.loop.is_closed():
            coroutine.close()
            raise ToolException("the MCP connection is closed (load the tools again)")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def close(self) -> None:
        if self._stop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not threading.current_thread():
            self._thread.join(10)


def _connect_error(err: BaseException) -> BaseException:
    """The first real error inside the SDK's task-group exception groups."""
    while getattr(err, "exceptions", None):  # an exception group (a builtin from 3.11)
        err = err.exceptions[0]  # type: ignore[attr-defined]
    if isinstance(err, Exception):
        return ConnectionError(f"cannot connect to the MCP server: {type(err).__name__}: {err}")
    return err


class MCPTools(list[Any]):
    """The tools of one MCP server (a list), and the connection they share.

    Close it when done (``close()``, or use it as a context manager); it is closed at
    interpreter exit otherwise.
    """

    def __init__(self, tools: Sequence[Any], connection: _Connection) -> None:
        super().__init__(tools)
        self._connection = connection
        self._finalizer = weakref.finalize(self, connection.close)

    def close(self) -> None:
        """Close the connection (a stdio server's process ends); the tools stop working."""
        self._finalizer()

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _target(server: str | Sequence[str], headers: Mapping[str, str] | None,
            env: Mapping[str, str] | None, cwd: str | None) -> Any:  # fmt: skip
    from mcp.client.stdio import StdioServerParameters

    if isinstance(server, str) and server.startswith(("http://", "https://")):
        if env is not None or cwd is not None:
            raise InvalidInputError("env and cwd go with a command, not with a URL")
        if not headers:
            return server
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return streamable_http_client(server, http_client=create_mcp_http_client(dict(headers)))
    if headers:
        raise InvalidInputError("headers go with an HTTP URL, not with a command")
    argv = shlex.split(server) if isinstance(server, str) else list(server)
    if not argv or not all(isinstance(arg, str) for arg in argv):
        raise InvalidInputError(
            f"an MCP server is an http(s) URL or a command (a string or a list of strings), "
            f"got {server!r}"
        )
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(env or {}) or None,
                                 cwd=cwd)  # fmt: skip


def _output(result: Any) -> str:
    texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    if texts:
        return "\n".join(texts)
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return ""


def _make_tool(connection: _Connection, definition: Any, handle_tool_error: Any) -> Any:
    from ragline.core.tools._function import StructuredTool

    name = definition.name

    async def call(arguments: dict[str, Any]) -> str:
        result = await connection.client.call_tool(name, arguments)
        if result.is_error:
            raise ToolException(_output(result) or f"the MCP tool {name!r} failed")
        return _output(result)

    def run(**arguments: Any) -> str:
        return connection.submit(call(arguments)).result()  # type: ignore[no-any-return]

    async def arun(**arguments: Any) -> str:
        return await asyncio.wrap_future(connection.submit(call(arguments)))  # type: ignore[no-any-return]

    schema = dict(definition.input_schema)
    schema.setdefault("title", name)
    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=definition.description or definition.title or name,
        args_schema=schema,
        handle_tool_error=handle_tool_error,
    )


def load_mcp_tools(
    server: str | Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    tool_names: Sequence[str] | None = None,
    handle_tool_error: Any = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> MCPTools:
    """Connect to an MCP server and return its tools as ragline tools.

    Each tool has the server's name, description and input schema, runs sync
    (``invoke``) and async (``ainvoke``), and goes to ``AgentExecutor`` or
    ``bind_tools`` like any other. A call the server reports as failed raises
    :class:`~ragline.core.exceptions.ToolException` with the server's message; with
    ``handle_tool_error=True`` (the default) an agent's model reads that message
    instead, so it can correct its call.

    Args:
        server: a Streamable HTTP URL (``http://127.0.0.1:8000/mcp``) or a command that
            serves MCP on its stdio (``"ragline mcp --store my-store"`` or a list of
            arguments).
        headers: HTTP headers for a URL (``{"X-API-Key": ...}``).
        env: environment variables added for a command.
        cwd: the command's working directory.
        tool_names: only these tools (each must exist).
        handle_tool_error: the tools' ``handle_tool_error``.
        timeout: seconds to wait for the server to start and for each answer.

    Returns:
        The tools, as an :class:`MCPTools` list; ``close()`` it (or use ``with``) to end
        the connection.

    Raises:
        InvalidInputError: ``server`` is neither, ``headers`` with a command, or an
            unknown name in ``tool_names``.
        ConnectionError: the server could not be reached or started.

    Example:
        >>> with load_mcp_tools("ragline mcp --store my-store") as tools:  # doctest: +SKIP
        ...     search = next(tool for tool in tools if tool.name == "search")
        ...     search.invoke({"query": "how do I rotate the logs?"})
    """
    require("mcp", "mcp")
    connection = _Connection(_target(server, headers, env, cwd), timeout=timeout)
    try:
        listed = connection.submit(connection.client.list_tools()).result(timeout)
        definitions = list(listed.tools)
        if tool_names is not None:
            known = {definition.name for definition in definitions}
            unknown = [name for name in tool_names if name not in known]
            if unknown:
                raise InvalidInputError(
                    f"the MCP server has no tool {', '.join(map(repr, unknown))}; it has "
                    f"{', '.join(sorted(map(repr, known)))}"
                )
            definitions = [d for d in definitions if d.name in set(tool_names)]
        tools = [_make_tool(connection, d, handle_tool_error) for d in definitions]
    except BaseException:
        connection.close()
        raise
    return MCPTools(tools, connection)
