"""The conversations of ``ragline serve``: ids the server issues, kept apart from the
terminal's ``ragline chat``.

A client starts a conversation with ``POST /chat/session``, which answers
``{"session_id": ...}``: 32 random URL-safe characters (``secrets.token_urlsafe``), so
one client cannot guess another's. ``/chat`` takes only ids the server issued (an
unknown one: 404; none: 422). The messages and the issued ids are kept in the folder's
``serve-chat.sqlite``, not in the ``chat.sqlite`` of ``ragline chat`` (whose default
session is ``default``); sharing that one is the explicit ``share_terminal_history``,
which takes any session id, as the terminal does.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ragline.serve._validation import Refused

__all__ = ["SERVER_CHAT_FILE", "ChatSessions"]

SERVER_CHAT_FILE = "serve-chat.sqlite"
_WHERE = ["config", "configurable", "session_id"]


class ChatSessions:
    """Issues session ids and checks the ones requests carry.

    Args:
        path: the SQLite file of the server's conversations.
        shared: the terminal's history is shared: any non-empty id is taken.
    """

    def __init__(self, path: Path, *, shared: bool = False) -> None:
        self.path = path
        self.shared = shared
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS issued_sessions "
                       "(session_id TEXT PRIMARY KEY, issued_at REAL NOT NULL)")  # fmt: skip

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def issue(self) -> str:
        """A new, unguessable session id, recorded as issued."""
        session_id = secrets.token_urlsafe(24)
        with self._lock, self._connect() as db:
            db.execute("INSERT INTO issued_sessions VALUES (?, ?)", (session_id, time.time()))
        return session_id

    def issued(self, session_id: str) -> bool:
        with self._lock, self._connect() as db:
            row = db.execute(
                "SELECT 1 FROM issued_sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
        return row is not None

    def check(self, config: dict[str, Any], request: Any) -> dict[str, Any]:
        """The ``per_req_config_modifier`` of ``/chat``: the config when its session id
        is one the server issued (or any id, with a shared history).

        Raises:
            Refused: 422 without a session id, 404 for one the server did not issue.
        """
        session_id = config.get("configurable", {}).get("session_id")
        if not isinstance(session_id, str) or not session_id:
            raise Refused(422, [{"type": "missing", "loc": _WHERE, "msg":
                "a conversation needs a session_id: get one with POST /chat/session"}])  # fmt: skip
        if not self.shared and not self.issued(session_id):
            raise Refused(404, [{"type": "value_error", "loc": _WHERE, "msg":
                "unknown session_id: this server did not issue it; start a conversation "
                "with POST /chat/session"}])  # fmt: skip
        return config

    def route(self, app: Any, path: str, api_key: str | None) -> None:
        """``POST {path}/session``: issue an id."""
        import hmac

        from starlette.responses import JSONResponse

        key = api_key.encode() if api_key is not None else None

        async def session(request: Any) -> Any:
            if key is not None:
                given = request.headers.get("x-api-key", "").encode()
                if not hmac.compare_digest(given, key):
                    detail = "missing or wrong API key (send it in the X-API-Key header)"
                    return JSONResponse({"detail": detail}, status_code=401)
            return JSONResponse({"session_id": self.issue()})

        app.router.add_route(f"{path}/session", session, methods=["POST"])
