"""A store folder as an MCP server: ``ragline mcp`` (stdio) and ``ragline serve --mcp``
(Streamable HTTP at ``/mcp``).

Tools (``ask`` only when a chat model is configured)::

    search        query, k, search_type, filter, source  -> passages, best first
    get_passage   id, neighbors                          -> the passage (and those around it)
    list_sources  pattern                                -> the indexed files
    ask           question, k, search_type, filter, source -> answer with its sources

and each indexed file is a resource (``ragline://source/<path relative to the indexed
folder>``). A passage's section is the heading path ``ragline index`` recorded in its
metadata (``Guide > Install``, for Markdown and HTML); in a store indexed before chunks
carried it, the last Markdown heading at or before the passage. The searches are
:class:`~ragline.serve.FolderSearch`'s, the very object ``/retrieve`` answers with, so a
passage found here is the one ``ragline query`` and the HTTP API find. A tool that
fails (a bad filter, an unknown id, no chat model) answers an MCP tool error
(``isError``) whose text says what was wrong and what to do, so the model that called it
can correct itself; an unknown tool or resource is a protocol error.

The official ``mcp`` SDK comes with the ``mcp`` extra (``pip install 'ragline[mcp]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import hmac
import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ragline.core import Document, InvalidInputError, RaglineError, Runnable
from ragline.core._optional import require

__all__ = [
    "MCP_PATH",
    "SOURCE_URI",
    "MCPEndpoint",
    "StoreMCP",
    "ToolError",
    "create_mcp_server",
    "open_store_mcp",
    "retrieval_chain",
    "serve_stdio",
    "source_uri",
    "tool_definitions",
]

logger = logging.getLogger("ragline.mcp")

MCP_PATH = "/mcp"
SOURCE_URI = "ragline://source/"
MAX_NEIGHBORS = 5
SCORE_MEANINGS = {
    "similarity": "relevance in [0, 1], higher is closer: (1 + cosine similarity) / 2",
    "similarity_score_threshold": "relevance in [0, 1], higher is closer: (1 + cosine "
    "similarity) / 2; only passages at or above the threshold",
    "mmr": "relevance in [0, 1] = (1 + cosine similarity) / 2; the order is MMR's, which "
    "trades relevance for diversity",
    "bm25": "BM25 keyword score, unbounded; compare scores within one query only",
    "hybrid": "fused score in [0, 1]: 0.5 x dense + 0.5 x BM25, each scaled so that the "
    "query's best candidate is 1",
}
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_MARKDOWN = (".md", ".markdown", ".mdx")

_FILTER_HELP = (
    'a metadata filter: {"field": value}, {"field": {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte"|'
    '"$in"|"$nin": ...}}, {"$and": [...]}, {"$or": [...]}. Chunk metadata has "path" (the '
    'file relative to the indexed folder), "source" (its absolute path), "start_index" and, '
    'under a heading, "section" (the heading path, titles joined by " > ")'
)
_SOURCE_HELP = (
    "a shell pattern over file paths relative to the indexed folder (e.g. 'docs/*.md', "
    "'*/api/*'): search only those files"
)


def _search_properties(search_types: Sequence[str], max_k: int) -> dict[str, Any]:
    return {
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": max_k,
            "default": 4,
            "description": "how many passages to return",
        },
        "search_type": {
            "enum": list(search_types),
            "default": "similarity",
            "description": "similarity: by meaning (the default); mmr: by meaning, fewer "
            "near-duplicates; similarity_score_threshold: by meaning, only close matches; "
            "bm25: exact words (names, error messages, identifiers); hybrid: both",
        },
        "filter": {"type": "object", "description": _FILTER_HELP},
        "source": {"type": "string", "description": _SOURCE_HELP},
    }


def tool_definitions(search_types: Sequence[str], max_k: int, *, ask: bool) -> list[dict[str, Any]]:
    """The tools' names, descriptions and input schemas (JSON Schema objects)."""
    options = _search_properties(search_types, max_k)
    tools = [
        {
            "name": "search",
            "title": "Search the documents",
            "description": "Find the passages of the indexed documents that best match a "
            "query, best first. Use it first for any question about these documents; "
            "each passage comes with its file (relative path), its section's heading "
            "path when it has one ('Guide > Install'), a score (score_meaning says how "
            "to read it) and an id for get_passage.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "description": "what to look for, in words",
                    },
                    **options,
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
        {
            "name": "get_passage",
            "title": "Read a passage",
            "description": "Read one passage by the id that search gave, and optionally the "
            "passages just before and after it in the same file (neighbors), to see "
            "more of its context.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {
                        "type": "string",
                        "minLength": 1,
                        "description": "a passage id from search or ask",
                    },
                    "neighbors": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": MAX_NEIGHBORS,
                        "default": 0,
                        "description": "passages to add before and after it",
                    },
                },
                "required": ["id"],
                "additionalProperties": False,
            },
        },
        {
            "name": "list_sources",
            "title": "List the indexed files",
            "description": "List the indexed files (paths relative to the indexed folder) "
            "with their number of passages, optionally only those matching a shell "
            "pattern. Use it to see what the documents cover or to pick a 'source' "
            "pattern for search.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "default": "*",
                        "description": "shell pattern, e.g. 'docs/*' or '*.md'",
                    },
                },
                "additionalProperties": False,
            },
        },
    ]
    if ask:
        tools.append(
            {
                "name": "ask",
                "title": "Answer from the documents",
                "description": "Answer a question from the indexed documents with the "
                "server's chat model: it searches, then answers from the passages found, "
                "and returns the answer with those passages' files and ids. Prefer "
                "search when you will read the passages yourself.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "question": {
                            "type": "string",
                            "minLength": 1,
                            "description": "the question, in words",
                        },
                        **options,
                    },
                    "required": ["question"],
                    "additionalProperties": False,
                },
            }
        )
    for definition in tools:
        definition["annotations"] = {"readOnlyHint": True, "openWorldHint": False}
    return tools


@dataclass(frozen=True)
class _Passage:
    id: str
    path: str
    position: int  # its place among the file's passages, in order
    section: str | None


class ToolError(RaglineError, ValueError):
    """A tool call the server refuses; its message goes back to the model."""


class StoreMCP:
    """What the MCP tools do, over one loaded store folder (no transport here).

    Args:
        search: the folder's :class:`~ragline.serve.FolderSearch`.
        chain: the retrieval chain ``ask`` answers with (input ``{"input": ..., search
            options}``), or None: no ``ask``.
        name: the store's name (the server's name for clients).
    """

    def __init__(self, search: Any, chain: Runnable[Any, Any] | None = None, *, name: str) -> None:
        self.search = search
        self.chain = chain
        self.name = name
        self._passages: dict[str, _Passage] | None = None
        self._files: dict[str, list[str]] = {}  # path -> passage ids in file order
        self._sources: dict[str, str] = {}  # path -> absolute source path
        self._texts: dict[str, str] = {}
        self._starts: dict[str, tuple[int, int] | None] = {}  # id -> (part, start_index)
        self._lock = threading.Lock()
        self.tools = tool_definitions(search.search_types, search.max_k, ask=chain is not None)
        self._schemas = {tool["name"]: tool["inputSchema"] for tool in self.tools}
        # made once: making a validator costs about a millisecond, as much as a search
        self._validators = {name: _validator(schema) for name, schema in self._schemas.items()}
        self._plain_checks = {name: _plain_check(schema) for name, schema in self._schemas.items()}

    # the passage table: built once, on first use
    def _table(self) -> dict[str, _Passage]:
        with self._lock:
            if self._passages is None:
                self._passages = self._build_table()
            return self._passages

    def _build_table(self) -> dict[str, _Passage]:
        from ragline.store_folder._text_index import store_records

        ids, texts, metadatas = store_records(self.search.store)
        by_file: dict[str, list[tuple[tuple[int, int], str]]] = {}
        recorded: dict[str, str | None] = {}  # id -> metadata["section"], when it has the key
        for id_, text, metadata in zip(ids, texts, metadatas, strict=True):
            path = _relative_path(metadata)
            self._sources.setdefault(path, str(metadata.get("source", path)))
            self._texts[id_] = text
            start = metadata.get("start_index")
            place = (_part(metadata), start if isinstance(start, int) else 0)
            self._starts[id_] = place if isinstance(start, int) else None
            by_file.setdefault(path, []).append((place, id_))
            if "section" in metadata:
                section = metadata["section"]
                recorded[id_] = section if isinstance(section, str) and section else None
        passages: dict[str, _Passage] = {}
        for path, entries in by_file.items():
            entries.sort()
            order = [id_ for _, id_ in entries]
            self._files[path] = order
            if any(id_ in recorded for id_ in order):  # indexed with heading paths
                sections = [recorded.get(id_) for id_ in order]
            else:  # a store indexed before chunks carried them
                sections = _sections(path, [self._texts[id_] for id_ in order])
            for position, (id_, section) in enumerate(zip(order, sections, strict=True)):
                passages[id_] = _Passage(id_, path, position, section)
        return passages

    # --- the tools -----------------------------------------------------------------------
    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run tool ``name``; its structured result.

        Raises:
            ToolError: arguments the tool refuses, or a failure it explains.
            KeyError: no such tool.
        """
        if name == "ask" and self.chain is None:
            from ragline.serve._store_app import NO_MODEL_MESSAGE

            raise ToolError(
                NO_MODEL_MESSAGE.replace("'ragline serve'", "the server").replace(
                    "/retrieve still works", "search still works"
                )
            )
        if name not in self._schemas:
            raise KeyError(name)
        arguments = dict(arguments or {})
        check = self._plain_checks[name]
        if check is None or not check(arguments):  # jsonschema decides, and explains
            _validate(name, arguments, self._validators[name])
        try:
            if name == "search":
                return await self._search(arguments)
            if name == "get_passage":
                return self._get_passage(arguments["id"], arguments.get("neighbors", 0))
            if name == "list_sources":
                return self._list_sources(arguments.get("pattern", "*"))
            return await self._ask(arguments)
        except ToolError:
            raise
        except (RaglineError, ValueError, TypeError) as err:
            raise ToolError(_message(err)) from err

    def _search_input(self, arguments: Mapping[str, Any], query_key: str) -> dict[str, Any]:
        request: dict[str, Any] = {"query": arguments[query_key]}
        for key in ("k", "search_type", "filter"):
            if key in arguments:
                request[key] = arguments[key]
        if request.get("search_type", self.search.search_type) == "mmr":
            request["fetch_k"] = max(20, 2 * request.get("k", self.search.k))
        if "source" in arguments:
            by_source = self._source_filter(arguments["source"])
            given = request.get("filter")
            request["filter"] = {"$and": [given, by_source]} if given else by_source
        return request

    def _source_filter(self, pattern: str) -> dict[str, Any]:
        from ragline.store_folder import source_filter

        try:
            return source_filter(self.search.store, pattern)
        except InvalidInputError as err:
            raise ToolError(f"source {err}; list_sources shows them") from None

    async def _search(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        request = self._search_input(arguments, "query")
        documents = await self.search.ainvoke(request)
        kind = request.get("search_type", self.search.search_type)
        return {
            "query": request["query"],
            "search_type": kind,
            "score_meaning": SCORE_MEANINGS[kind],
            "passages": [
                self._describe(document, rank) for rank, document in enumerate(documents, 1)
            ],
        }

    def _describe(self, document: Document, rank: int | None = None) -> dict[str, Any]:
        passage = self._table().get(document.id or "")
        metadata = document.metadata
        row: dict[str, Any] = {} if rank is None else {"rank": rank}
        row["id"] = document.id
        row["source"] = passage.path if passage else _relative_path(metadata)
        row["section"] = passage.section if passage else None
        if "relevance_score" in metadata:
            row["score"] = metadata["relevance_score"]
        row["text"] = document.page_content
        return row

    def _get_passage(self, id_: str, neighbors: int) -> dict[str, Any]:
        passage = self._table().get(id_)
        if passage is None:
            raise ToolError(
                f"no passage has the id {id_[:80]!r}; ids come from search (or ask) results "
                "of this store, and change when a file is re-indexed"
            )
        order = self._files[passage.path]
        low = max(0, passage.position - neighbors)
        rows = []
        for position in range(low, min(len(order), passage.position + neighbors + 1)):
            other = self._passages[order[position]]  # type: ignore[index]
            rows.append(
                {
                    "id": other.id,
                    "source": other.path,
                    "section": other.section,
                    "position": position,
                    "text": self._texts[other.id],
                }
            )
        return {
            "id": id_,
            "source": passage.path,
            "passages_in_file": len(order),
            "passages": rows,
        }

    def _list_sources(self, pattern: str) -> dict[str, Any]:
        self._table()
        rows = [
            {"source": path, "passages": len(ids), "uri": source_uri(path)}
            for path, ids in sorted(self._files.items())
            if fnmatch.fnmatchcase(path, pattern)
        ]
        return {"pattern": pattern, "files": len(rows), "sources": rows}

    async def _ask(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        request = self._search_input(arguments, "question")
        request["input"] = request.pop("query")
        result = await self.chain.ainvoke(request)  # type: ignore[union-attr]
        return {
            "question": request["input"],
            "answer": result["answer"],
            "sources": [
                {key: value for key, value in self._describe(document).items() if key != "text"}
                for document in result.get("context", [])
            ],
        }

    # --- resources -----------------------------------------------------------------------
    def resources(self) -> list[dict[str, Any]]:
        """One resource per indexed file."""
        self._table()
        return [
            {
                "uri": source_uri(path),
                "name": path,
                "mime_type": _mime_type(path),
                "description": f"indexed file {path} ({len(ids)} passages)",
            }
            for path, ids in sorted(self._files.items())
        ]

    def read(self, uri: str) -> tuple[str, str]:
        """The text of the indexed file ``uri`` names, and its MIME type.

        The file as it is on disk now; for a file that is not UTF-8 text (a PDF, a file
        indexed with another encoding) or that is gone, its indexed passages joined in
        order (:meth:`indexed_text`).

        Raises:
            KeyError: ``uri`` names no indexed file.
        """
        from ragline.store_folder._corpus import BINARY_SUFFIXES

        self._table()
        path = unquote(uri[len(SOURCE_URI) :]) if uri.startswith(SOURCE_URI) else None
        if path is None or path not in self._files:
            raise KeyError(uri)
        if Path(path).suffix.lower() not in BINARY_SUFFIXES:  # a PDF may be ASCII bytes
            try:
                return Path(self._sources[path]).read_text(encoding="utf-8"), _mime_type(path)
            except (OSError, UnicodeDecodeError):
                pass
        return self.indexed_text(path), _mime_type(path)

    def indexed_text(self, path: str) -> str:
        """The passages of the indexed file ``path`` in order, joined: overlapping chunks
        once (where ``start_index`` shows the overlap and the texts agree), a space
        between chunks one character apart (a split at a space or a line break), a blank
        line between the others and between pages.

        Raises:
            KeyError: ``path`` is not an indexed file.
        """
        self._table()
        pieces: list[str] = []
        previous: tuple[int, int, str] | None = None  # the last passage: part, start, text
        for id_ in self._files[path]:
            text, place = self._texts[id_], self._starts[id_]
            shown, separator = text, "\n\n"
            if previous is not None and place is not None and place[0] == previous[0]:
                _, start, before = previous
                gap = place[1] - (start + len(before))
                overlap = before[place[1] - start :]
                if gap < 0 and place[1] >= start and text.startswith(overlap):
                    shown, separator = text[len(overlap) :], ""
                elif gap == 1:
                    separator = " "
            if pieces:
                pieces.append(separator)
            pieces.append(shown)
            previous = None if place is None else (place[0], place[1], text)
        return "".join(pieces)


def source_uri(path: str) -> str:
    """The resource URI of an indexed file (its path relative to the indexed folder)."""
    return SOURCE_URI + quote(path)


def _relative_path(metadata: Mapping[str, Any]) -> str:
    path = metadata.get("path")
    return str(path if isinstance(path, str) else metadata.get("source", ""))


def _part(metadata: Mapping[str, Any]) -> int:
    """The loaded document a chunk comes from, in file order: a PDF's page, a CSV's row
    (0 for a file loaded as one document)."""
    for key in ("page", "row"):
        value = metadata.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def _mime_type(path: str) -> str:
    return "text/markdown" if path.lower().endswith(_MARKDOWN) else "text/plain"


def _sections(path: str, texts: Sequence[str]) -> list[str | None]:
    """Each passage's section title: in a Markdown file, the last heading at or before
    the passage's first line (the passages in file order); elsewhere None."""
    if not path.lower().endswith(_MARKDOWN):
        return [None] * len(texts)
    sections: list[str | None] = []
    current: str | None = None
    for text in texts:
        headings = list(_HEADING.finditer(text))
        opening = headings[0] if headings and not text[: headings[0].start()].strip() else None
        sections.append(opening.group(2).strip() if opening else current)
        if headings:
            current = headings[-1].group(2).strip()
    return sections


def _validator(schema: Mapping[str, Any]) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema)


# the keywords _plain_check reads in a property's schema (any other: no quick check)
_PLAIN_KEYWORDS = frozenset({"type", "enum", "minLength", "minimum", "maximum", "default",
                             "description"})  # fmt: skip


def _plain_check(schema: Mapping[str, Any]) -> Any:
    """A quick test that ``arguments`` are valid against ``schema`` (one of
    :func:`tool_definitions`'): True only for arguments the schema accepts, written the
    plain way (an ``int`` for an integer, a ``dict`` for an object); False sends them
    to jsonschema, which decides and words the error. About 20 times cheaper than
    jsonschema's ``iter_errors`` on a valid call. None when the schema uses a keyword
    it does not read."""
    properties = schema.get("properties", {})
    if set(schema) - {"type", "properties", "required", "additionalProperties"} or (
        schema.get("additionalProperties", True) is not False
    ):
        return None
    rules: dict[str, tuple[str, Any, Any]] = {}
    for key, rule in properties.items():
        if set(rule) - _PLAIN_KEYWORDS:
            return None
        if "enum" in rule:
            if "type" in rule or not all(isinstance(value, str) for value in rule["enum"]):
                return None
            rules[key] = ("enum", frozenset(rule["enum"]), None)
        elif rule.get("type") == "string":
            rules[key] = ("string", rule.get("minLength", 0), None)
        elif rule.get("type") == "integer":
            rules[key] = ("integer", rule.get("minimum"), rule.get("maximum"))
        elif rule.get("type") == "object" and set(rule) <= {"type", "description"}:
            rules[key] = ("object", None, None)
        else:
            return None
    required = tuple(schema.get("required", ()))

    def check(arguments: Mapping[str, Any]) -> bool:
        for key in required:
            if key not in arguments:
                return False
        for key, value in arguments.items():
            rule = rules.get(key)
            if rule is None:
                return False
            kind, first, second = rule
            if kind == "string":
                if type(value) is not str or len(value) < first:
                    return False
            elif kind == "integer":
                if (
                    type(value) is not int
                    or (first is not None and value < first)
                    or (second is not None and value > second)
                ):
                    return False
            elif kind == "enum":
                if type(value) is not str or value not in first:
                    return False
            elif type(value) is not dict:
                return False
        return True

    return check


def _validate(name: str, arguments: dict[str, Any], validator: Any) -> None:
    errors = sorted(validator.iter_errors(arguments), key=lambda error: list(error.path))
    if errors:
        error = errors[0]
        where = ".".join(str(part) for part in error.path)
        raise ToolError(f"{name}: {where + ': ' if where else ''}{error.message}")


def _message(err: BaseException) -> str:
    text = str(err)
    if "filter" in text.lower() or "operator" in text.lower():
        return f"bad filter: {text}"
    return text


def _json(value: Any) -> str:
    # on one line: json's C encoder (indent takes the pure-Python one, 0.3 ms a search)
    return json.dumps(value, ensure_ascii=False)


def create_mcp_server(tools: StoreMCP) -> Any:
    """The SDK's low-level ``Server`` over ``tools``."""
    require("mcp", "mcp")
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    listed = types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in tools.tools])

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listed

    async def call_tool(ctx: Any, params: Any) -> Any:
        try:
            result = await tools.call(params.name, params.arguments)
        except KeyError:
            names = ", ".join(tool["name"] for tool in tools.tools)
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"no tool {params.name!r}; the tools are {names}"
            ) from None
        except ToolError as err:
            return types.CallToolResult(content=[types.TextContent(text=str(err))], is_error=True)
        except Exception as err:  # the client gets a message, the log the traceback
            logger.exception("tool %s failed", params.name)
            text = f"{params.name} failed: {type(err).__name__}: {err}"
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        return types.CallToolResult(
            content=[types.TextContent(text=_json(result))], structured_content=result
        )

    async def list_resources(ctx: Any, params: Any) -> Any:
        listed = await asyncio.to_thread(tools.resources)
        return types.ListResourcesResult(
            resources=[types.Resource.model_validate(row) for row in listed]
        )

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        try:
            text, mime_type = await asyncio.to_thread(tools.read, uri)
        except KeyError:
            raise MCPError(
                code=-32002,
                message=f"no indexed file has the URI {uri[:200]!r}; "
                "list the resources (or call list_sources) for them",
            ) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime_type)]
        )

    from ragline import __version__

    return Server(
        f"ragline: {tools.name}",
        version=__version__,
        instructions=f"Search the documents indexed in the ragline store {tools.name!r}: "
        "call search first, get_passage for more context, list_sources for the files.",
        # Streamable HTTP checks a call's Mcp-Param headers against the tool's schema:
        # from here, not from a tools/list run through the server on every call
        get_tool_input_schema=tools._schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def open_store_mcp(
    folder: Any,
    *,
    model: Runnable[Any, Any] | None = None,
    chain_type: str = "stuff",
    embedding: str | None = None,
    k: int = 4,
    score_threshold: float = 0.5,
    search_threads: int | None = 1,
) -> StoreMCP:
    """Load a store folder (store, embedding model, keyword index) for the MCP tools.

    Raises:
        PersistenceError: no store in ``folder``.
    """
    from ragline.serve._store_app import open_folder_search

    store_folder, search = open_folder_search(
        folder, embedding=embedding, search_threads=search_threads, k=k,
        score_threshold=score_threshold,
    )  # fmt: skip
    return StoreMCP(search, retrieval_chain(search, model, chain_type), name=store_folder.path.name)


def retrieval_chain(search: Any, model: Any, chain_type: str) -> Runnable[Any, Any] | None:
    """``create_retrieval_chain`` over ``search`` answering with ``model`` (None: None)."""
    if model is None:
        return None
    from ragline.chains import create_documents_chain, create_retrieval_chain

    documents_chain = create_documents_chain(model, chain_type, question_key="input")
    return create_retrieval_chain(search, documents_chain)


async def serve_stdio(tools: StoreMCP) -> None:
    """Serve ``tools`` over this process's stdin and stdout until stdin closes.

    Where stdin and stdout are pipes (as an MCP client starts a server), the messages
    are read and written on the event loop (:func:`_pipe_streams`); anywhere else
    through the SDK's ``stdio_server``, which hands every line to a worker thread.
    """
    from mcp.server.stdio import stdio_server

    server = create_mcp_server(tools)
    options = server.create_initialization_options()
    if _are_pipes():
        async with _pipe_streams() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)
        return
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, options)


def _are_pipes() -> bool:
    import os
    import stat
    import sys

    if sys.platform == "win32":  # the event loop reads pipes there only with IOCP
        return False
    try:
        return all(stat.S_ISFIFO(os.fstat(fd).st_mode) for fd in (0, 1))
    except OSError:
        return False


@contextlib.asynccontextmanager
async def _pipe_streams() -> Any:
    """The SDK's message streams over the stdin and stdout pipes, read and written by
    the event loop itself: a call costs no hop to a worker thread and back (three per
    call with the SDK's ``stdio_server``; on a busy machine each is a wait for a core).

    While serving, fd 0 reads the null device and fd 1 writes to stderr, so nothing
    else in the process (a library's print, a child process) can write into the
    protocol; both are put back at the end.
    """
    import os

    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved = (os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=2**26, loop=loop)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(wire_in, "rb")
    )
    write_transport, write_protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), os.fdopen(wire_out, "wb")
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    incoming_writer, incoming = anyio.create_memory_object_stream[Any](0)
    outgoing, outgoing_reader = anyio.create_memory_object_stream[Any](0)

    reading = anyio.CancelScope()
    unanswered: set[Any] = set()  # ids of the requests read and not answered yet
    answered = asyncio.Event()

    async def read_lines() -> None:
        with reading:
            async with incoming_writer:
                while line := await reader.readline():
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except Exception as err:  # the session answers a parse error
                        await incoming_writer.send(err)
                        continue
                    request_id = getattr(message, "id", None)
                    if getattr(message, "method", None) and request_id is not None:
                        unanswered.add(request_id)
                    await incoming_writer.send(SessionMessage(message))
                # a client may close stdin as soon as it has sent its requests: they
                # are answered first (the session would drop them on closing)
                while unanswered:
                    answered.clear()
                    await answered.wait()

    async def write_lines() -> None:
        async with outgoing_reader:
            async for session_message in outgoing_reader:
                message = session_message.message
                if not writer.is_closing():
                    try:
                        line = message.model_dump_json(by_alias=True, exclude_unset=True)
                        writer.write(line.encode() + b"\n")
                        await writer.drain()
                    except ConnectionError:  # the client is gone: the rest is dropped
                        write_transport.close()
                if getattr(message, "method", None) is None:  # an answer
                    unanswered.discard(getattr(message, "id", None))
                    answered.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_lines)
            group.start_soon(write_lines)
            try:
                yield incoming, outgoing
            finally:
                reading.cancel()
                await outgoing.aclose()  # write_lines ends when it has written the rest
        with anyio.move_on_after(5):  # the last answers, from the pipe's buffer
            while write_transport.get_write_buffer_size():
                await asyncio.sleep(0.005)
    finally:
        read_transport.close()
        write_transport.close()
        for fd, kept in enumerate(saved):
            os.dup2(kept, fd)
            os.close(kept)


class MCPEndpoint:
    """The ASGI app ``/mcp`` mounts: the SDK's Streamable HTTP transport, behind the
    server's API key (``X-API-Key``, or ``Authorization: Bearer``). ``Host`` and
    ``Origin`` are checked by the server's :class:`~ragline.serve._guard.Guard`, in
    front of every route. The SDK's session manager starts with the first request
    (the app may run without lifespan events), in a task of the server's loop.
    """

    def __init__(self, tools: StoreMCP, *, api_key: str | None = None) -> None:
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        self.manager = StreamableHTTPSessionManager(
            app=create_mcp_server(tools),
            # a call's answer as one JSON body: the tools send no progress or requests
            # back while they run, and a body costs less than an event stream per call
            json_response=True,
            # the Guard checks Host and Origin against the server's own settings
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._key = api_key.encode() if api_key else None
        self._started: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None

    async def _start(self) -> None:
        if self._started is None:
            self._started = asyncio.Event()
            self._runner = asyncio.get_running_loop().create_task(self._run())
        await self._started.wait()

    async def _run(self) -> None:
        async with self.manager.run():
            self._started.set()  # type: ignore[union-attr]
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.Event().wait()

    def _authorized(self, scope: Mapping[str, Any]) -> bool:
        if self._key is None:
            return True
        headers = dict(scope.get("headers", []))
        given = headers.get(b"x-api-key")
        if given is None:
            bearer = headers.get(b"authorization", b"")
            given = bearer[7:] if bearer[:7].lower() == b"bearer " else b""
        return hmac.compare_digest(given, self._key)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not self._authorized(scope):
            body = json.dumps(
                {
                    "detail": "missing or wrong API key (send it in the "
                    "X-API-Key header, or as Authorization: Bearer)"
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self._start()
        await self.manager.handle_request(scope, receive, send)
