"""Every exception ragline raises on purpose.

Each specific error also subclasses the built-in a user would already catch, so
``except ValueError`` keeps working when code is ported from elsewhere::

    RaglineError
    ├── InvalidInputError (ValueError)       bad argument or input; nothing was changed
    │   ├── MissingVariableError (KeyError)  a prompt or chain input lacks a required key
    │   │   ├── PromptKeyError               ... a prompt's variable; prints as KeyError
    │   │   └── DocumentVariableError        ... format_document's; prints as ValueError
    │   ├── NotAMessageError                 not a message where messages go; prints as ValueError
    │   ├── ModelInputError                  a model's input is no str, PromptValue or list of
    │   │                                    messages; prints as ValueError
    │   ├── UnsupportedPromptPartError (NotImplementedError)  not a part a chat prompt
    │   │                                    takes; prints as NotImplementedError
    │   ├── TokenLimitError                  documents that cannot be brought under token_max
    │   │                                    (map-reduce); prints as ValueError
    │   ├── PromptInputTypeError (TypeError) a prompt invoked with a non-dict; prints as TypeError
    │   ├── ArgumentTypeError (TypeError)    an argument of the wrong type (k=None, k="3", a
    │   │                                    branch that is no pair); prints as TypeError
    │   ├── FilterError                      unknown operator or field in a metadata filter
    │   ├── DimensionError                   a vector of the wrong dimension, or NaN / inf
    │   ├── OutputParserException            a model's reply is not in the expected format
    │   ├── AgentParsingError                an agent's reply did not parse and its executor
    │   │                                    does not handle that; prints as ValueError
    │   └── ToolValidationError              a tool's arguments do not fit its schema
    ├── ConfigurationError (ValueError)      unknown configurable id, search_type, chain_type ...
    │   └── UnsupportedMethodError (NotImplementedError)  a model lacks that way of working
    │                                        (structured output); prints as NotImplementedError
    ├── MissingDependencyError (ImportError) an optional package is not installed; names the extra
    ├── StoreConnectionError (ConnectionError)  a backend server or Ray cluster cannot be
    │                                        reached; names the URL or address
    ├── ServerError (RuntimeError)           a server (ragline serve, LangServe) answered an error
    ├── ServerTimeoutError (TimeoutError)    a server did not answer in time; names the URL
    ├── PersistenceError (OSError)           a saved store is missing, truncated or newer
    ├── StoreLockedError (TimeoutError)      another process is writing the store folder; names it
    ├── IndexingInterrupted                  an index run was asked to stop; what was kept is saved
    ├── IndexingException                    the vector store reported a failed delete during an
    │                                        index run's cleanup; the records were kept
    ├── LoaderError (OSError)                a file or URL could not be read; names it
    ├── ChainStepError (RuntimeError)        one step of a chain failed on one item; names it
    ├── ToolException (RuntimeError)         raised by a tool; handle_tool_error may turn it
    │                                        into an observation for the model
    └── RecursionLimitError (RecursionError) a run nested deeper than config["recursion_limit"]

A few classes print under the built-in name LangChain raises at the same place
(``type(err).__name__``, ``repr``), for programs that print it; see ``printed_as``.

Messages name the thing, the bad value and the valid options. Errors from backend
libraries (faiss, redis, httpx ...) are mapped at the boundary with the original
chained (``raise ... from err``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "AgentParsingError",
    "ArgumentTypeError",
    "ChainInputError",
    "ChainStepError",
    "ConfigurationError",
    "DimensionError",
    "DocumentVariableError",
    "FilterError",
    "IndexingException",
    "IndexingInterrupted",
    "InvalidDocstringError",
    "InvalidInputError",
    "LoaderError",
    "MemoryKeyError",
    "MissingDependencyError",
    "MissingVariableError",
    "ModelInputError",
    "NotAMessageError",
    "OutputParserException",
    "PersistenceError",
    "PromptInputTypeError",
    "PromptKeyError",
    "RaglineError",
    "RecursionLimitError",
    "ServerError",
    "ServerTimeoutError",
    "StoreConnectionError",
    "StoreLockedError",
    "TokenLimitError",
    "ToolException",
    "ToolValidationError",
    "UnsupportedMethodError",
    "UnsupportedPromptPartError",
    "printed_as",
]


class RaglineError(Exception):
    """Base class of every error ragline raises on purpose."""


class InvalidInputError(RaglineError, ValueError):
    """An argument or input is invalid; the call changed nothing."""


class MissingVariableError(InvalidInputError, KeyError):
    """A prompt or chain was invoked without a required input key."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


_Error = TypeVar("_Error", bound=type[BaseException])


def printed_as(builtin: type[BaseException]) -> Callable[[_Error], _Error]:
    """Give a class the printed name of ``builtin``, the class LangChain raises there.

    ``type(err).__name__`` and ``repr(err)`` then read as LangChain's (``KeyError('...')``),
    which ported programs print; ``__qualname__`` keeps the class's own name, so
    tracebacks (``ragline.core.exceptions.PromptKeyError: ...``) and pickling find it.
    The class stays a subclass of ragline's error and of ``builtin``, so ``except``
    clauses written for either catch it.
    """

    def rename(cls: _Error) -> _Error:
        if not issubclass(cls, builtin):
            raise TypeError(f"{cls.__qualname__} must subclass {builtin.__name__}")
        cls.__name__ = builtin.__name__
        return cls

    return rename


def as_validation_error(error: RaglineError, title: str, given: Any) -> RaglineError:
    """``error`` as pydantic's ``ValidationError`` too, where pydantic is installed: a
    constructor's refusal where LangChain's pydantic model raises that class.

    The result is an instance of ``type(error)`` and of ``pydantic_core.ValidationError``,
    printed as ``ValidationError``; its text stays ``error``'s, ``errors()`` holds one
    ``value_error`` about ``given`` (the constructor's arguments) and ``title`` names the
    model, as pydantic's. Without pydantic, ``error`` itself.
    """
    cls = _validation_error_class(type(error))  # type: ignore[arg-type]  # a class hashes
    if cls is None:
        return error
    detail = {"type": "value_error", "loc": (), "input": given, "ctx": {"error": str(error)}}
    converted = cls.from_exception_data(title, [detail])
    converted.__dict__.update(error.__dict__)
    converted._text, converted.args = str(error), error.args
    converted._given = given
    return converted  # type: ignore[no-any-return]


def _rebuilt_validation_error(
    base: type[RaglineError], args: tuple[Any, ...], title: str, given: Any
) -> RaglineError:
    """A pickled :func:`as_validation_error` error made again (its class is made at run
    time, so pickle cannot find it by name: it is rebuilt from its ragline base)."""
    return as_validation_error(base(*args), title, given)


@functools.cache  # one class per ragline error, built on first use
def _validation_error_class(base: type[RaglineError]) -> Any:
    try:
        import pydantic_core
    except ImportError:
        return None

    class ValidationError(pydantic_core.ValidationError, base):  # type: ignore[misc,valid-type]
        _text = ""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass  # built by pydantic's from_exception_data

        def __str__(self) -> str:
            return self._text

        def __reduce__(self) -> Any:  # pydantic's pickles; an error crosses processes
            state = {k: v for k, v in self.__dict__.items() if k not in ("_text", "_given")}
            return _rebuilt_validation_error, (base, self.args, self.title, self._given), state

    ValidationError.__doc__ = f"pydantic's ``ValidationError`` and ragline's ``{base.__name__}``."
    ValidationError.__qualname__ = "ValidationError"
    return ValidationError


@printed_as(KeyError)
class PromptKeyError(MissingVariableError):
    """A prompt was formatted without one of its variables.

    Prints as ``KeyError``, the class LangChain's prompts raise there.
    """


@printed_as(ValueError)
class DocumentVariableError(MissingVariableError):
    """``format_document``'s prompt names a metadata key the document lacks.

    Prints as ``ValueError``, the class LangChain's ``format_document`` raises there.
    """


@printed_as(ValueError)
class ChainInputError(MissingVariableError):
    """A legacy chain (the ``Chain`` API: LLMChain, TransformChain, SequentialChain,
    RetrievalQA, the combine-documents chains ...) was invoked without one of its input
    keys.

    Prints as ``ValueError``, the class LangChain's ``Chain`` raises there.
    """


@printed_as(ValueError)
class MemoryKeyError(InvalidInputError):
    """A memory cannot tell which input or output of a run to save: several keys, and
    no ``input_key`` / ``output_key`` set on the memory.

    Prints as ``ValueError``, the class LangChain's memories raise there.
    """


@printed_as(NotImplementedError)
class UnsupportedPromptPartError(InvalidInputError, NotImplementedError):
    """A chat prompt was given a part it cannot hold (a number, a list, a
    ``PromptTemplate``) in ``from_messages``, ``append`` or ``extend``.

    Also a ``NotImplementedError`` and prints as one, the class LangChain's chat prompt
    raises there ("Unsupported message type").
    """


@printed_as(ValueError)
class NotAMessageError(InvalidInputError):
    """A list of messages holds something that is not a message, a message-like
    item (``("robot", "hi")``, ``{"role": "robot", ...}``) names an unknown role, or a
    ``MessagesPlaceholder`` is given something other than a list.

    Prints as ``ValueError``, the class LangChain's ``get_buffer_string`` and
    ``convert_to_messages`` raise there.
    """


@printed_as(ValueError)
class ModelInputError(InvalidInputError):
    """A chat model or LLM was given an input that is neither a str, a ``PromptValue`` nor
    a list of messages (``model.invoke(5)``, an ``abatch`` item).

    Prints as ``ValueError``, the class LangChain's models raise there.
    """


@printed_as(ValueError)
class TokenLimitError(InvalidInputError):
    """Documents cannot be brought under a map-reduce chain's ``token_max``: one document
    alone is longer, or collapsing them did not shorten them enough.

    Prints as ``ValueError``, the class LangChain's ``split_list_of_docs`` and
    ``ReduceDocumentsChain`` raise there.
    """


@printed_as(ValueError)
class InvalidDocstringError(InvalidInputError):
    """``parse_docstring`` with ``error_on_invalid_docstring``: the docstring has no
    Google-style ``Args:`` block, or describes an argument the function does not take.

    Prints as ``ValueError``, the class LangChain's tool decorator raises there.
    """


@printed_as(TypeError)
class PromptInputTypeError(InvalidInputError, TypeError):
    """A prompt with several variables was invoked with something other than a dict.

    Also a ``TypeError`` and prints as one, the class LangChain's prompts raise there.
    """


@printed_as(TypeError)
class ArgumentTypeError(InvalidInputError, TypeError):
    """An argument of the wrong type: a numeric one that is not a number at all (``k=None``,
    ``k="3"``, ``k=2.0``), or a ``RunnableBranch`` branch that is not a (condition, runnable) pair.

    Also a ``TypeError`` and prints as one: LangChain's stores fail with a ``TypeError``
    on such a ``k``, and a ported ``except TypeError`` must still catch ragline's. An
    integer out of range (``k=0``) stays a plain :class:`InvalidInputError`.
    """


class FilterError(InvalidInputError):
    """A metadata filter uses an unknown operator, a bad operand or an unknown field."""


class DimensionError(InvalidInputError):
    """A vector has the wrong dimension or holds NaN / infinite values."""


class OutputParserException(InvalidInputError):
    """A model's reply could not be parsed (an agent's ReAct text, a tool call's JSON ...).

    Args:
        error: what was wrong, for people.
        observation: what to tell the model when the error goes back to it (an agent
            with ``handle_parsing_errors=True``), e.g. "Invalid Format: Missing 'Action:'".
        llm_output: the reply that failed to parse.
        send_to_llm: whether ``observation`` and ``llm_output`` should be sent back to the
            model (then both are required).

    Example:
        >>> err = OutputParserException("no action", observation="say Action:",
        ...                             llm_output="hmm", send_to_llm=True)
        >>> (str(err), err.observation, err.llm_output)
        ('no action', 'say Action:', 'hmm')
    """

    def __init__(
        self,
        error: object,
        observation: str | None = None,
        llm_output: str | None = None,
        send_to_llm: bool = False,
    ) -> None:
        if send_to_llm and (observation is None or llm_output is None):
            raise ValueError(
                "OutputParserException(send_to_llm=True) needs an observation and the llm_output"
            )
        super().__init__(error)
        self.observation = observation
        self.llm_output = llm_output
        self.send_to_llm = send_to_llm


@printed_as(ValueError)
class AgentParsingError(InvalidInputError):
    """An agent's reply could not be parsed and its ``AgentExecutor`` has
    ``handle_parsing_errors=False``, so the error is not sent back to the agent.

    The parser's :class:`OutputParserException` is chained (``__cause__``). Prints as
    ``ValueError``, the class LangChain's ``AgentExecutor`` raises there (not its
    ``OutputParserException``).
    """


class ToolValidationError(InvalidInputError):
    """A tool was called with arguments that do not fit its schema; names each problem.

    Attributes:
        tool: the tool's name.
        errors: ``(argument path, problem)`` pairs, e.g. ``("b", "expected an integer")``.
    """

    def __init__(self, message: str, *, tool: str, errors: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.tool = tool
        self.errors = errors


class ConfigurationError(RaglineError, ValueError):
    """An unknown option: configurable id, search_type, chain_type, metric ..."""


@printed_as(NotImplementedError)
class UnsupportedMethodError(ConfigurationError, NotImplementedError):
    """A model was asked for a way of working it lacks (``with_structured_output`` of a
    model without tools or JSON output).

    Also a ``NotImplementedError`` and prints as one, the class LangChain raises there.
    """


class MissingDependencyError(RaglineError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class StoreConnectionError(RaglineError, ConnectionError):
    """A backend server (Redis, an HTTP endpoint) or a Ray cluster cannot be reached."""


class ServerError(RaglineError, RuntimeError):
    """A server (``ragline serve``, LangServe, any ``add_routes`` app) answered a request
    with an error; the message is the server's.

    Attributes:
        status_code: the HTTP status (422: the input did not fit the runnable's schema;
            401: a wrong or missing API key; 500: the runnable raised).
        url: the URL that answered.
    """

    def __init__(self, message: str, *, status_code: int, url: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.url = url


class ServerTimeoutError(RaglineError, TimeoutError):
    """A server did not answer within the client's timeout; the message names the URL."""


class PersistenceError(RaglineError, OSError):
    """A saved store is missing, truncated, corrupt or written by a newer format version."""


class StoreLockedError(RaglineError, TimeoutError):
    """Another process holds a store folder's writer lock; the message names it."""


class IndexingInterrupted(RaglineError):
    """An index run stopped when asked to; the message says what it kept."""


class IndexingException(RaglineError):
    """The vector store said a delete failed (``delete`` returned ``False``) while
    ``index()`` cleaned up; the record manager still lists those ids, so the next run
    with cleanup deletes them again."""


class LoaderError(RaglineError, OSError):
    """A file or URL could not be read or decoded; the message names it."""


class ChainStepError(RaglineError, RuntimeError):
    """One step of a chain failed on one item (a map step on a document, say).

    The message names the item; the original error is chained as ``__cause__``.

    Attributes:
        index: the 0-based position of the item that failed.
        item: the item itself (a Document, for document chains).
    """

    def __init__(self, message: str, *, index: int, item: object = None) -> None:
        super().__init__(message)
        self.index = index
        self.item = item


class ToolException(RaglineError, RuntimeError):
    """Raise it in a tool to report a failure the agent may recover from.

    With ``handle_tool_error`` set on the tool, the error becomes the observation the
    model sees (``True``: its message; a string: that string; a callable: its result);
    without it the error propagates like any other.
    """


class RecursionLimitError(RaglineError, RecursionError):
    """Runs nested deeper than ``config["recursion_limit"]``."""
