"""Connections for the Redis-backed stores: clients, safe URLs, errors, command drivers.

Store logic is written as generators that yield lists of commands and receive their
replies (``ResponseError`` objects in place of failed replies), so the same code runs on
a sync client (:func:`run`) and on ``redis.asyncio`` (:func:`arun`). A list of several
commands goes out as one pipeline (one round trip, no MULTI). For bulk writes an
operation yields :class:`Packed` instead: commands already encoded in the Redis protocol,
sent on one connection with a few in flight, so the server works
on one batch while the next one is being encoded.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ragline.core._checks import check_optional_number, check_positive_int
from ragline.core._optional import require
from ragline.core.exceptions import ConfigurationError, RaglineError, StoreConnectionError

__all__ = [
    "Operation",
    "Packed",
    "RedisConnection",
    "arun",
    "bulk",
    "check_batch_size",
    "checked",
    "describe_client",
    "glob_escape",
    "make_async_client",
    "make_client",
    "run",
    "safe_url",
    "ttl_milliseconds",
]

T = TypeVar("T")
Command = tuple[Any, ...]


@dataclass
class Packed:
    """Encoded requests, produced lazily, each with the number of replies it gets back.

    They are sent on one connection with at most ``window`` requests unanswered, so the
    server works on one while the next is encoded. The driver returns every reply.
    """

    requests: Iterable[tuple[bytes, int]]
    window: int = 2


# yields a list of commands (or Packed ones), receives one reply per command, returns T
Operation = Generator[list[Command] | Packed, list[Any], T]


def bulk(data: bytes) -> bytes:
    """One RESP bulk string."""
    return b"$%d\r\n%b\r\n" % (len(data), data)


def checked(reply: Any, command: str) -> Any:
    """``reply``, or a RaglineError naming ``command`` when Redis answered with an error."""
    if isinstance(reply, Exception):
        raise RaglineError(f"Redis rejected {command}: {reply}") from reply
    return reply


def glob_escape(text: str) -> str:
    """``text`` with the characters special in a SCAN MATCH pattern escaped."""
    return "".join("\\" + char if char in "\\*?[]" else char for char in text)


def redis_module() -> Any:
    return require("redis", "redis")


def ttl_milliseconds(ttl: float | None) -> int | None:
    """A ``ttl`` option in seconds as the whole milliseconds PEXPIRE takes (at least 1).

    Raises:
        ConfigurationError: ``ttl`` is not None and not a finite positive number.
    """
    seconds = check_optional_number(
        "ttl (seconds)", ttl, low=0, low_open=True, error=ConfigurationError
    )
    return None if seconds is None else max(1, int(seconds * 1000))


def check_batch_size(batch_size: int) -> int:
    """``batch_size`` if it is a positive int, else ConfigurationError naming it."""
    return check_positive_int("batch_size", batch_size, error=ConfigurationError)


def safe_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for error messages and reprs).

    Example:
        >>> safe_url("redis://user:secret@host:6379/0")
        'redis://user:***@host:6379/0'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable Redis URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def describe_client(client: Any) -> str:
    """Where a user-supplied client points (``redis://host:port/db``), without secrets."""
    try:
        kwargs = client.connection_pool.connection_kwargs
    except AttributeError:
        return repr(type(client).__name__)
    if "path" in kwargs:
        return f"unix://{kwargs['path']}"
    host, port = kwargs.get("host", "localhost"), kwargs.get("port", 6379)
    return f"redis://{host}:{port}/{kwargs.get('db', 0)}"


def make_client(url: str, *, connect_timeout: float | None, timeout: float | None) -> Any:
    """A sync client for ``url`` speaking RESP2 with bytes replies (vectors are binary)."""
    return _from_url(redis_module().Redis, url, connect_timeout, timeout)


def make_async_client(url: str, *, connect_timeout: float | None, timeout: float | None) -> Any:
    """A ``redis.asyncio`` client, configured as :func:`make_client`."""
    asyncio_redis = require("redis.asyncio", "redis", package="redis")
    return _from_url(asyncio_redis.Redis, url, connect_timeout, timeout)


def _from_url(
    client_class: Any, url: str, connect_timeout: float | None, timeout: float | None
) -> Any:
    try:
        return client_class.from_url(
            url,
            protocol=2,
            decode_responses=False,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
        )
    except ValueError as err:
        raise ConfigurationError(f"invalid Redis URL {safe_url(url)!r}: {err}") from err


def check_client(client: Any) -> Any:
    """The client to use for a user's ``redis.Redis``: itself if it speaks RESP2 with bytes
    replies (vectors are binary), else a client with the same connection settings that does.
    """
    redis = redis_module()
    if not isinstance(client, redis.Redis):
        raise ConfigurationError(
            f"client must be a redis.Redis (sync) client, got {type(client).__name__}; pass "
            "a redis.asyncio client as async_client"
        )
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    if not kwargs.get("decode_responses") and kwargs.get("protocol") in (2, "2"):
        return client
    kwargs.update(protocol=2, decode_responses=False)
    for name in list(kwargs):  # RESP3-only extras of newer redis-py versions
        if name.startswith(("maint_notifications", "orig_")):
            del kwargs[name]
    return redis.Redis(
        connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    )


def _connection_error(err: Exception, where: str) -> StoreConnectionError:
    return StoreConnectionError(
        f"cannot reach Redis at {where}: {str(err).rstrip('.') or type(err).__name__}. Is "
        "the server running? "
        "(start one with: scripts/redis-stack.sh start 6379)"
    )


def run(client: Any, operation: Operation[T], where: str) -> T:
    """Drive ``operation`` on a sync client; connection failures become StoreConnectionError."""
    redis = redis_module()
    response_error = redis.exceptions.ResponseError
    try:
        commands = next(operation)
        while True:
            if isinstance(commands, Packed):
                replies = _send_packed(client, commands, response_error)
            elif len(commands) == 1:
                try:
                    replies = [client.execute_command(*commands[0])]
                except response_error as err:
                    replies = [err]
            else:
                pipe = client.pipeline(transaction=False)
                for command in commands:
                    pipe.execute_command(*command)
                replies = pipe.execute(raise_on_error=False)
            commands = operation.send(replies)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    except RaglineError:
        raise  # the operation's own error (a PersistenceError is an OSError too)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as err:
        operation.close()
        raise _connection_error(err, where) from err


async def arun(client: Any, operation: Operation[T], where: str) -> T:
    """Drive ``operation`` on a ``redis.asyncio`` client (as :func:`run`)."""
    redis = redis_module()
    response_error = redis.exceptions.ResponseError
    try:
        commands = next(operation)
        while True:
            if isinstance(commands, Packed):
                replies = await _asend_packed(client, commands, response_error)
            elif len(commands) == 1:
                try:
                    replies = [await client.execute_command(*commands[0])]
                except response_error as err:
                    replies = [err]
            else:
                pipe = client.pipeline(transaction=False)
                for command in commands:
                    pipe.execute_command(*command)
                replies = await pipe.execute(raise_on_error=False)
            commands = operation.send(replies)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    except RaglineError:
        raise  # the operation's own error (a PersistenceError is an OSError too)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as err:
        operation.close()
        raise _connection_error(err, where) from err


def _send_packed(client: Any, packed: Packed, response_error: type[Exception]) -> list[Any]:
    pool = client.connection_pool
    try:
        connection = pool.get_connection()
    except TypeError:  # redis-py 5 wants a command name
        connection = pool.get_connection("EVAL")
    replies: list[Any] = []
    in_flight: list[int] = []
    try:
        for request, expected in packed.requests:
            connection.send_packed_command([request])
            in_flight.append(expected)
            if len(in_flight) > packed.window:
                for _ in range(in_flight.pop(0)):
                    replies.append(_read(connection, response_error))
        for expected in in_flight:
            for _ in range(expected):
                replies.append(_read(connection, response_error))
    except BaseException:
        connection.disconnect()  # unread replies would answer the next command
        raise
    finally:
        pool.release(connection)
    return replies


def _read(connection: Any, response_error: type[Exception]) -> Any:
    try:
        return connection.read_response()
    except response_error as err:
        return err


async def _asend_packed(client: Any, packed: Packed, response_error: type[Exception]) -> list[Any]:
    pool = client.connection_pool
    try:
        connection = await pool.get_connection()
    except TypeError:  # redis-py 5 wants a command name
        connection = await pool.get_connection("EVAL")
    replies: list[Any] = []
    in_flight: list[int] = []
    try:
        for request, expected in packed.requests:
            await connection.send_packed_command([request])
            in_flight.append(expected)
            if len(in_flight) > packed.window:
                for _ in range(in_flight.pop(0)):
                    replies.append(await _aread(connection, response_error))
        for expected in in_flight:
            for _ in range(expected):
                replies.append(await _aread(connection, response_error))
    except BaseException:
        await connection.disconnect()
        raise
    finally:
        await pool.release(connection)
    return replies


async def _aread(connection: Any, response_error: type[Exception]) -> Any:
    try:
        return await connection.read_response()
    except response_error as err:
        return err


class RedisConnection:
    """Where a Redis-backed object sends its operations: a URL, or a user's client.

    With a URL, the sync client is made on first use and kept; each async call opens a
    ``redis.asyncio`` client and closes it (asyncio connections belong to one event
    loop). With a sync ``client``, async calls run it in a worker thread.

    Args:
        url: ``redis://[user:password@]host:port[/db]`` (used when ``client`` is None).
        client: a ``redis.Redis`` client to use instead.
        connect_timeout, timeout: socket timeouts in seconds for clients made here.
    """

    def __init__(
        self,
        url: str,
        client: Any = None,
        *,
        connect_timeout: float | None = 5.0,
        timeout: float | None = 30.0,
    ) -> None:
        self._timeouts = {"connect_timeout": connect_timeout, "timeout": timeout}
        self._url = None if client is not None else url
        self._client = None if client is None else check_client(client)
        self.where = safe_url(url) if client is None else describe_client(client)

    def run(self, operation: Operation[T]) -> T:
        """Drive ``operation`` on the sync client (see :func:`run`)."""
        if self._client is None:
            assert self._url is not None
            self._client = make_client(self._url, **self._timeouts)
        return run(self._client, operation, self.where)

    async def arun(self, operation: Operation[T]) -> T:
        """Drive ``operation`` on ``redis.asyncio`` (see :func:`arun`)."""
        if self._url is None:
            import asyncio

            return await asyncio.to_thread(self.run, operation)
        client = make_async_client(self._url, **self._timeouts)
        try:
            return await arun(client, operation, self.where)
        finally:
            await client.aclose()

    def close(self) -> None:
        """Close the client made here (a client passed in stays open)."""
        if self._client is not None and self._url is not None:
            self._client.close()
            self._client = None
