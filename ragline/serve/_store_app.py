"""``create_store_app``: what ``ragline serve`` runs for a store folder.

The folder's store, its embedding model and its keyword index are loaded once; then::

    POST /retrieve/...   FolderSearch: similarity, mmr, similarity_score_threshold,
                         bm25, hybrid; filters; each document's relevance in
                         metadata["relevance_score"]
    POST /ask/...        the retrieval chain (stuff, map_reduce, refine, map_rerank):
                         {"input": question, ...search options} -> input, context, answer
    POST /chat/session   a new conversation: {"session_id": an unguessable id}
    POST /chat/...       the conversation: create_conversational_retrieval_chain, kept
                         per session in the folder's serve-chat.sqlite; config
                         {"configurable": {"session_id": an id the server issued}}
    GET  /healthz        the store, the model, what is served
    GET  /               the web page (search box, chat panel with streamed answers)

every runnable route through :func:`~ragline.serve.add_routes`. Without a chat model,
``/ask`` and ``/chat`` answer 503 with a message that says how to configure one, and
the page still searches.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hmac
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import TYPE_CHECKING, Any

from ragline.core import Document, InvalidInputError, Runnable, RunnableConfig
from ragline.core._checks import check_choice, check_positive_int, check_unit_interval
from ragline.core._optional import require
from ragline.serve._app import create_app
from ragline.serve._routes import DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_REQUEST_BYTES, add_routes
from ragline.serve._sessions import SERVER_CHAT_FILE, ChatSessions

if TYPE_CHECKING:
    from ragline.store_folder import StoreFolder

__all__ = ["DEFAULT_MAX_FETCH_K", "DEFAULT_MAX_K", "NO_MODEL_MESSAGE", "FolderSearch",
           "create_store_app"]  # fmt: skip

DEFAULT_MAX_K = 100
DEFAULT_MAX_FETCH_K = 1_000
DEFAULT_SEARCH_WORKERS = 2
# a search stays on the event loop only when it is this small: a plain similarity
# search (no filter, no MMR, no keyword index) for at most FAST_K results in a store of
# at most FAST_CHUNKS chunks takes about a millisecond; anything else goes to the pool
FAST_K = 20
FAST_CHUNKS = 100_000
_FAST_TYPES = ("similarity", "similarity_score_threshold")
SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold", "bm25", "hybrid")
NO_MODEL_MESSAGE = (
    "no chat model configured: start 'ragline serve' with OPENAI_BASE_URL and/or "
    "OPENAI_API_KEY set (model: --model or RAGLINE_MODEL); /retrieve still works"
)
_STATIC = {"app.js": "text/javascript", "app.css": "text/css"}


class FolderSearch(Runnable[Any, list[Document]]):
    """Search a loaded store folder; the runnable behind ``/retrieve``.

    The input is a query string, or a dict with the query (``"query"`` or ``"input"``)
    and options: ``k``, ``search_type``, ``filter``, ``score_threshold`` (for
    ``similarity_score_threshold``, default 0.5), ``fetch_k`` and ``lambda_mult`` (for
    ``mmr``). Documents come back best first, each with its score in
    ``metadata["relevance_score"]``: the store's relevance in [0, 1] (also for MMR,
    which ranks by relevance and diversity), BM25's score, or the hybrid's fused score.

    Args:
        store: the folder's vector store.
        keyword: the folder's BM25 retriever (``bm25`` and ``hybrid`` need it).
        k: results when the input does not say.
        search_type: the search type when the input does not say.
        score_threshold: ``similarity_score_threshold``'s threshold when the input
            does not say.
        max_k: the most results one search may ask for (``k``).
        max_fetch_k: the most candidates ``mmr`` and ``hybrid`` may fetch (``fetch_k``).
        workers: threads that run the searches that can be long (MMR, filters, BM25,
            hybrid, large ``k``), at most this many at once, off the event loop.
        search_threads: FAISS threads in each worker (OpenMP's setting is per thread);
            None keeps FAISS's own.

    Raises:
        InvalidInputError: (when invoked) an unknown option, search type or a bad value,
            or ``k`` / ``fetch_k`` over its limit.
    """

    OPTIONS = ("k", "search_type", "filter", "score_threshold", "fetch_k", "lambda_mult")

    def __init__(
        self,
        store: Any,
        keyword: Any = None,
        *,
        k: int = 4,
        search_type: str = "similarity",
        score_threshold: float = 0.5,
        max_k: int = DEFAULT_MAX_K,
        max_fetch_k: int = DEFAULT_MAX_FETCH_K,
        workers: int = DEFAULT_SEARCH_WORKERS,
        search_threads: int | None = 1,
    ) -> None:
        self.store = store
        self.keyword = keyword
        self.max_k = check_positive_int("max_k", max_k)
        self.max_fetch_k = check_positive_int("max_fetch_k", max_fetch_k)
        self.k = self._limited("k", check_positive_int("k", k), self.max_k, "max_k")
        self.score_threshold = check_unit_interval("score_threshold", score_threshold)
        self.search_type = check_choice("search_type", search_type, self.search_types)
        self.name = "retrieve"
        self.workers = check_positive_int("workers", workers)
        self.search_threads = search_threads
        self._small_store = store.count() <= FAST_CHUNKS
        self._pool: ThreadPoolExecutor | None = None

    @property
    def search_types(self) -> tuple[str, ...]:
        """The search types this folder offers (``bm25`` and ``hybrid`` need a keyword
        index)."""
        return SEARCH_TYPES if self.keyword is not None else SEARCH_TYPES[:3]

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._search, input, config, run_type="retriever")  # type: ignore[no-any-return]

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """A small plain search runs on the caller's thread (the server's event loop):
        it takes about a millisecond, and the hop to a worker thread cost as much again.
        Any other search (MMR, a filter, BM25, hybrid, a large ``k``) can take seconds,
        so it runs in the search pool (``workers`` threads, each with FAISS set to
        ``search_threads``), and the loop keeps answering other requests meanwhile."""
        if self._is_fast(input):
            return self.invoke(input, config, **kwargs)
        call = functools.partial(contextvars.copy_context().run, self.invoke, input, config,
                                 **kwargs)  # fmt: skip
        return await asyncio.get_running_loop().run_in_executor(self._executor(), call)  # type: ignore[no-any-return]

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Every search of a batch runs in the search pool: many small searches in a row
        would hold the event loop as long as one large one."""
        from ragline.core.config import get_config_list

        configs = get_config_list(config, len(inputs))
        loop = asyncio.get_running_loop()
        calls = [
            loop.run_in_executor(self._executor(), functools.partial(
                contextvars.copy_context().run, self.invoke, value, one, **kwargs))
            for value, one in zip(inputs, configs, strict=True)
        ]  # fmt: skip
        return list(await asyncio.gather(*calls, return_exceptions=return_exceptions))

    def _is_fast(self, input: Any) -> bool:
        if not self._small_store:
            return False
        if isinstance(input, str):
            return self.search_type in _FAST_TYPES and self.k <= FAST_K
        if not isinstance(input, Mapping) or input.get("filter"):
            return False
        k = input.get("k", self.k)
        kind = input.get("search_type", self.search_type)
        return kind in _FAST_TYPES and isinstance(k, int) and k <= FAST_K

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(
                self.workers, thread_name_prefix="ragline-search", initializer=self._set_threads
            )
        return self._pool

    def _set_threads(self) -> None:
        if self.search_threads is not None:
            faiss = require("faiss", "faiss", package="faiss-cpu")
            faiss.omp_set_num_threads(self.search_threads)

    @staticmethod
    def _limited(name: str, value: int, limit: int, setting: str) -> int:
        if value > limit:
            raise InvalidInputError(
                f"{name}={value} is over this server's limit of {limit} ({setting}); ask "
                f"for at most {limit}"
            )
        return value

    def _search(self, input: Any) -> list[Document]:
        query, options = self._parse(input)
        kind = options.pop("search_type", self.search_type)
        if kind == "similarity_score_threshold":
            options.setdefault("score_threshold", self.score_threshold)
        kwargs = {"k": self.k, **options}
        if kind in ("bm25", "hybrid"):
            return self._keyword_search(kind, query, kwargs)
        retriever = self.store.as_retriever(
            search_type=kind, search_kwargs=kwargs, score_key="relevance_score"
        )
        return retriever.invoke(query)  # type: ignore[no-any-return]

    def _keyword_search(self, kind: str, query: str, kwargs: dict[str, Any]) -> list[Document]:
        from ragline.retrievers import BM25Retriever, HybridRetriever

        allowed = ("k", "filter") if kind == "bm25" else ("k", "filter", "fetch_k")
        unknown = sorted(key for key in kwargs if key not in allowed)
        if unknown:
            raise InvalidInputError(
                f"search option(s) {', '.join(map(repr, unknown))} do not go with search_type "
                f"{kind!r}; it takes {', '.join(map(repr, allowed))}"
            )
        keyword, k, where = self.keyword, kwargs["k"], kwargs.get("filter")
        if kind == "bm25":
            bm25 = BM25Retriever(
                keyword.vectorizer,
                keyword.docs,
                k=k,
                preprocess_func=keyword.preprocess_func,
                filter=where,
                score_key="relevance_score",
                only_matching=True,
            )
            return bm25.invoke(query)
        hybrid = HybridRetriever(self.store, keyword, k=k, fetch_k=kwargs.get("fetch_k"),
                                 filter=where)  # fmt: skip
        return hybrid.invoke(query)

    def _parse(self, input: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(input, str):
            return input, {}
        if not isinstance(input, Mapping):
            raise InvalidInputError(
                f"the search input is a query string or a dict, got {type(input).__name__}"
            )
        query = input.get("query", input.get("input"))
        if not isinstance(query, str):
            raise InvalidInputError("the search input needs a 'query' (or 'input') string")
        options = {key: value for key, value in input.items() if key not in ("query", "input")}
        unknown = sorted(key for key in options if key not in self.OPTIONS)
        if unknown:
            raise InvalidInputError(
                f"unknown search option(s) {', '.join(map(repr, unknown))}; the options are "
                f"{', '.join(map(repr, self.OPTIONS))}"
            )
        if "k" in options:
            k = check_positive_int("k", options["k"])
            options["k"] = self._limited("k", k, self.max_k, "max_k")
        if "fetch_k" in options:
            fetch_k = check_positive_int("fetch_k", options["fetch_k"])
            options["fetch_k"] = self._limited("fetch_k", fetch_k, self.max_fetch_k, "max_fetch_k")
        for name in ("score_threshold", "lambda_mult"):
            if name in options:
                options[name] = check_unit_interval(name, options[name])
        if "search_type" in options:
            check_choice("search_type", options["search_type"], self.search_types)
        return query, options


def search_input_schema(
    search_types: Sequence[str],
    *,
    query_keys: Sequence[str],
    max_k: int = DEFAULT_MAX_K,
    max_fetch_k: int = DEFAULT_MAX_FETCH_K,
) -> dict[str, Any]:
    """JSON Schema of a search request: a string, or an object with the query and the
    search options (``k`` and ``fetch_k`` at most the server's limits)."""
    properties: dict[str, Any] = {key: {"type": "string"} for key in query_keys}
    properties.update(
        {
            "k": {"type": "integer", "minimum": 1, "maximum": max_k},
            "search_type": {"enum": list(search_types)},
            "filter": {"type": "object"},
            "score_threshold": {"type": "number", "minimum": 0, "maximum": 1},
            "fetch_k": {"type": "integer", "minimum": 1, "maximum": max_fetch_k},
            "lambda_mult": {"type": "number", "minimum": 0, "maximum": 1},
        }
    )
    request = {"type": "object", "properties": properties, "additionalProperties": False}
    return {"title": "SearchInput", "anyOf": [{"type": "string"}, request]}


def open_folder_search(
    folder: Any, *, embedding: str | None, search_threads: int | None, **options: Any
) -> tuple[StoreFolder, FolderSearch]:
    """The store folder and a :class:`FolderSearch` (``options``: its options) over the
    folder's store and its BM25 retriever, None when the folder cannot give one (the page
    then offers the store's search types only). ``search_threads`` also sets FAISS's
    threads, for the whole process, when given.

    Raises:
        PersistenceError: no store in ``folder``.
        ConfigurationError: an unknown embedding.
    """
    from ragline.store_folder import StoreFolder

    if search_threads is not None:  # concurrent searches side by side, not each on every core
        faiss = require("faiss", "faiss", package="faiss-cpu")
        faiss.omp_set_num_threads(check_positive_int("search_threads", search_threads))
    store_folder = StoreFolder(folder)
    store = store_folder.open_store(embedding=embedding)
    try:
        keyword = store_folder.as_retriever(
            search_type="bm25", search_kwargs={"k": 4}, embeddings=store.embeddings
        )
    except (ImportError, OSError, ValueError):
        keyword = None
    return store_folder, FolderSearch(store, keyword, search_threads=search_threads, **options)


def create_store_app(
    folder: str | os.PathLike[str],
    *,
    model: Runnable[Any, Any] | None = None,
    chain_type: str = "stuff",
    embedding: str | None = None,
    k: int = 4,
    score_threshold: float = 0.5,
    search_threads: int | None = 1,
    api_key: str | None = None,
    cors_origins: Sequence[str] | None = None,
    allowed_hosts: Sequence[str] = (),
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    max_k: int = DEFAULT_MAX_K,
    max_fetch_k: int = DEFAULT_MAX_FETCH_K,
    max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
    search_workers: int = DEFAULT_SEARCH_WORKERS,
    share_terminal_history: bool = False,
    mcp: bool = False,
) -> Any:
    """The ``ragline serve`` application for one store folder.

    Args:
        folder: a folder written by ``ragline index``.
        model: the chat model ``/ask`` and ``/chat`` answer with; ``None``: those
            routes answer 503 saying how to configure one.
        chain_type: ``"stuff"``, ``"map_reduce"``, ``"refine"`` or ``"map_rerank"``.
        embedding: embed queries with this embedding name (default: the folder's).
        k: passages retrieved when a request does not say.
        score_threshold: ``similarity_score_threshold``'s default threshold.
        search_threads: threads FAISS uses for one search (it is process-wide). 1, the
            default, lets concurrent requests run side by side instead of each one
            spreading over every core (on a busy 2-core machine a 10,000-chunk search
            took 14 ms on one thread and 120-140 ms on two); None keeps FAISS's own.
        api_key: every API request must carry it (``X-API-Key``), ``/healthz`` and the
            docs included; the page asks for it.
        cors_origins: origins allowed to call the API from their pages (default: none).
        allowed_hosts: host names the server answers to besides localhost, 127.0.0.1
            and ::1 (any other ``Host``: 400); see :func:`create_app`.
        max_request_bytes: larger requests are refused with 413.
        max_k: the most results a request may ask for (more: 422).
        max_fetch_k: the most MMR / hybrid candidates a request may ask for (more: 422).
        max_batch_size: the most inputs one ``/batch`` request may carry (more: 422).
        search_workers: threads for the searches that can be long (MMR, filters, BM25,
            hybrid, large ``k``), run off the event loop, at most this many at once.

        share_terminal_history: keep ``/chat`` conversations in the folder's
            ``chat.sqlite`` with the terminal's ``ragline chat``, any session id taken.
            Default: the server's own ``serve-chat.sqlite``, with session ids it issues
            (``POST /chat/session``); see :mod:`ragline.serve._sessions`.
        mcp: also serve the store to MCP clients at ``/mcp`` (Streamable HTTP; the
            tools of :mod:`ragline.serve._mcp`), behind the same API key and host and
            origin checks. Needs the ``mcp`` extra.

    Raises:
        PersistenceError: no store in ``folder``.
        ConfigurationError: an unknown chain type or embedding.

    Example:
        >>> app = create_store_app("my-store")  # doctest: +SKIP
        >>> run_server(app, port=8000)  # doctest: +SKIP
    """
    from ragline.chains import (
        CHAIN_TYPES,
        create_conversational_retrieval_chain,
        create_documents_chain,
        create_retrieval_chain,
    )
    from ragline.memory import SQLChatMessageHistory

    check_choice("chain_type", chain_type, CHAIN_TYPES)
    store_folder, search = open_folder_search(
        folder,
        embedding=embedding,
        search_threads=search_threads,
        k=k,
        score_threshold=score_threshold,
        max_k=max_k,
        max_fetch_k=max_fetch_k,
        workers=search_workers,
    )
    manifest = store_folder.read_manifest()
    app = create_app(title=f"ragline: {store_folder.path.name}", cors_origins=cors_origins,
                     allowed_hosts=allowed_hosts, api_key=api_key)  # fmt: skip

    def route(runnable: Runnable[Any, Any], path: str, schema: dict[str, Any], **more: Any) -> None:
        add_routes(app, runnable, path=path, input_schema=schema, api_key=api_key,
                   max_request_bytes=max_request_bytes, max_batch_size=max_batch_size,
                   **more)  # fmt: skip

    limits = {"max_k": search.max_k, "max_fetch_k": search.max_fetch_k}
    retrieve_schema = search_input_schema(
        search.search_types, query_keys=("query", "input"), **limits
    )
    route(search, "/retrieve", retrieve_schema)

    ask_schema = search_input_schema(search.search_types, query_keys=("input",), **limits)
    ask_schema = ask_schema["anyOf"][1]
    ask_schema = {**ask_schema, "title": "AskInput", "required": ["input"]}
    ask: Runnable[Any, Any] | None = None
    if model is None:
        for path in ("/ask", "/chat"):
            _unavailable(app, path, NO_MODEL_MESSAGE)
    else:
        documents_chain = create_documents_chain(model, chain_type, question_key="input")
        ask = create_retrieval_chain(search, documents_chain)
        route(ask, "/ask", ask_schema)
        shared = share_terminal_history
        chat_path = store_folder.chat_history_path if shared else (
            store_folder.path / SERVER_CHAT_FILE)  # fmt: skip
        sessions = ChatSessions(chat_path, shared=shared)
        sessions.route(app, "/chat", api_key)
        chat = create_conversational_retrieval_chain(
            model,
            search,
            lambda session_id: SQLChatMessageHistory(session_id, connection=chat_path),
        )
        chat_schema = {
            "title": "ChatInput",
            "type": "object",
            "properties": {"input": {"type": "string"}},
            "required": ["input"],
        }
        route(chat, "/chat", chat_schema, per_req_config_modifier=sessions.check)

    health = {
        "status": "ok",
        "store": store_folder.path.name,  # its name only: where it lies is the server's
        "documents": search.store.count(),
        "embedding": manifest.embedding,
        "model": _model_name(model),
        "chain_type": chain_type,
        "search_types": list(search.search_types),
        "search_type": search.search_type,
        "k": k,
        "limits": {**limits, "batch": max_batch_size},
        "auth": api_key is not None,
    }
    if mcp:
        _mcp_route(app, search, ask, store_folder.path.name, api_key)
    _page_routes(app, health, api_key)
    return app


def _mcp_route(app: Any, search: FolderSearch, ask: Any, name: str, api_key: str | None) -> None:
    require("mcp", "mcp")
    from starlette.routing import Route

    from ragline.serve._mcp import MCP_PATH, MCPEndpoint, StoreMCP

    endpoint = MCPEndpoint(StoreMCP(search, ask, name=name), api_key=api_key)
    # first: every MCP message is a request to it, and the router tries its routes in
    # order (the path is exact: no other route is shadowed)
    app.router.routes.insert(0, Route(MCP_PATH, endpoint=endpoint))


def _model_name(model: Any) -> str | None:
    if model is None:
        return None
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or
               type(model).__name__)  # fmt: skip


def _unavailable(app: Any, path: str, message: str) -> None:
    from starlette.responses import JSONResponse

    async def unavailable(request: Any) -> Any:
        return JSONResponse({"detail": message}, status_code=503)

    app.router.add_route(f"{path}/{{endpoint:path}}", unavailable, methods=["GET", "POST"])


def _page_routes(app: Any, health: dict[str, Any], api_key: str | None) -> None:
    from starlette.responses import HTMLResponse, JSONResponse, Response

    static = resources.files("ragline.serve").joinpath("static")
    key = api_key.encode() if api_key is not None else None

    async def healthz(request: Any) -> Any:
        if key is not None:
            given = request.headers.get("x-api-key", "").encode()
            if not hmac.compare_digest(given, key):
                detail = "missing or wrong API key (send it in the X-API-Key header)"
                return JSONResponse({"detail": detail, "auth": True}, status_code=401)
        return JSONResponse(health)

    async def page(request: Any) -> Any:
        return HTMLResponse(static.joinpath("index.html").read_text(encoding="utf-8"))

    async def asset(request: Any) -> Any:
        name = request.path_params["name"]
        if name not in _STATIC:
            return Response("not found", status_code=404)
        body = static.joinpath(name).read_text(encoding="utf-8")
        return Response(body, media_type=_STATIC[name])

    async def no_icon(request: Any) -> Any:
        return Response(status_code=204)

    app.router.add_route("/healthz", healthz, methods=["GET"])
    app.router.add_route("/favicon.ico", no_icon, methods=["GET"])
    app.router.add_route("/", page, methods=["GET"])
    app.router.add_route("/static/{name}", asset, methods=["GET"])
