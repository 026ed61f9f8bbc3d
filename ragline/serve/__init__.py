"""ragline.serve: serve runnables over HTTP with LangServe's protocol, and call them back.

    from ragline.serve import RemoteRunnable, add_routes, create_app, run_server

    app = create_app()
    add_routes(app, chain, path="/chain")         # POST /chain/invoke, /batch, /stream ...
    run_server(app, port=8000)                    # uvicorn on 127.0.0.1

    remote = RemoteRunnable("http://127.0.0.1:8000/chain")
    remote.invoke({"input": "..."})               # Documents, messages ... come back typed

``create_store_app(folder)`` is what ``ragline serve`` runs: a store folder's search
(``/retrieve``), its retrieval chain (``/ask``) and conversation (``/chat``), with a
web page at ``/``. FastAPI and uvicorn come with the ``serve`` extra
(``pip install 'ragline[serve]'``); nothing here imports them until it is used.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "add_routes": "._routes",
    "RemoteRunnable": "._client",
    "create_app": "._app",
    "run_server": "._app",
    "BackgroundServer": "._app",
    "create_store_app": "._store_app",
    "FolderSearch": "._store_app",
    "dumpd": "._serialization",
    "loadd": "._serialization",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
