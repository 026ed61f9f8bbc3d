"""ChatOpenAI: a chat model for any server speaking OpenAI's chat-completions protocol.

OpenAI itself, vLLM, Ollama, llama.cpp's server, LM Studio ... all answer
``POST {base_url}/chat/completions``. The ``openai`` package (``pip install
'ragline[openai]'``) does the HTTP work, retries included; it is imported when the first
request is made, and each client is created once (the async one once per event loop).

Errors are mapped at this boundary, the SDK's error chained:

- server unreachable, timed out, or still failing (429 / 5xx) after the retries:
  ``StoreConnectionError`` naming the URL;
- 401 / 403 (key rejected), 404 (unknown model or path): ``ConfigurationError``;
- 400 / 422 (the server refused this request): ``InvalidInputError``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    BaseChatModel,
    BaseMessage,
    BaseTool,
    ChatMessage,
    ConfigurationError,
    FunctionMessage,
    HumanMessage,
    InvalidInputError,
    RaglineError,
    Runnable,
    StoreConnectionError,
    SystemMessage,
    ToolMessage,
)
from ragline.core._checks import (
    check_choice,
    check_non_negative_int,
    check_optional_int,
    check_optional_number,
    check_optional_positive_int,
)
from ragline.core._openai_clients import OpenAIClients, client_options, credentials
from ragline.core._optional import require
from ragline.core.language_models import stop_list
from ragline.core.tools import convert_to_openai_tool

__all__ = ["ChatOpenAI", "convert_to_openai_tool", "message_to_openai"]

# Sent when a local server needs no key (the SDK insists on one); vLLM's docs use "EMPTY".
_NO_KEY = "EMPTY"

# Per-call options a caller may pass to invoke/stream or fix with bind(); anything else is
# an error naming these.
_CALL_OPTIONS = (
    "temperature", "max_tokens", "top_p", "seed", "frequency_penalty", "presence_penalty",
    "tools", "tool_choice", "parallel_tool_calls", "response_format", "logprobs",
    "extra_body",
)  # fmt: skip
_SAMPLING = ("temperature", "max_tokens", "top_p", "seed", "frequency_penalty", "presence_penalty")


def _check_sampling(values: Mapping[str, Any]) -> None:
    """Check sampling settings (given to the constructor, or per call) before any request."""
    check_optional_number("temperature", values.get("temperature"), low=0, high=2)
    check_optional_number("top_p", values.get("top_p"), low=0, high=1)
    check_optional_number("frequency_penalty", values.get("frequency_penalty"), low=-2, high=2)
    check_optional_number("presence_penalty", values.get("presence_penalty"), low=-2, high=2)
    check_optional_positive_int("max_tokens", values.get("max_tokens"))
    check_optional_int("seed", values.get("seed"), minimum=None)


def _check_mapping(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, Mapping):
        raise InvalidInputError(f"{name} must be a dict, got {type(value).__name__}: {value!r:.60}")


def _content_for_openai(content: Any) -> Any:
    if isinstance(content, str):
        return content
    return [{"type": "text", "text": part} if isinstance(part, str) else part for part in content]


def message_to_openai(message: BaseMessage) -> dict[str, Any]:
    """Convert a message to the chat-completions wire format.

    Example:
        >>> message_to_openai(HumanMessage("hi"))
        {'role': 'user', 'content': 'hi'}
    """
    if isinstance(message, SystemMessage):
        # ("developer", ...) is a system message marked for OpenAI's developer role
        role = message.additional_kwargs.get("__openai_role__", "system")
        payload: dict[str, Any] = {"role": role}
    elif isinstance(message, HumanMessage):
        payload = {"role": "user"}
    elif isinstance(message, AIMessage):
        payload = {"role": "assistant"}
        if message.tool_calls:
            payload["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
                }
                for call in message.tool_calls
            ]
    elif isinstance(message, ToolMessage):
        payload = {"role": "tool", "tool_call_id": message.tool_call_id}
    elif isinstance(message, ChatMessage):
        payload = {"role": message.role}
    elif isinstance(message, FunctionMessage):
        payload = {"role": "function"}  # its name is added below
    else:
        raise InvalidInputError(f"ChatOpenAI cannot send a {type(message).__name__}")
    payload["content"] = _content_for_openai(message.content)
    if message.name:
        payload["name"] = message.name
    return payload


def _usage(usage: Any) -> dict[str, Any] | None:
    """The response's usage as ``usage_metadata``: LangChain's keys, with the cached prompt
    tokens (``input_token_details["cache_read"]``) and reasoning tokens
    (``output_token_details["reasoning"]``) when the server reports them."""
    if usage is None:
        return None
    counted: dict[str, Any] = {
        "input_tokens": usage.prompt_tokens or 0,
        "output_tokens": usage.completion_tokens or 0,
        "total_tokens": usage.total_tokens or 0,
    }
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    if cached is not None:
        counted["input_token_details"] = {"cache_read": cached}
    reasoning = getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None)
    if reasoning is not None:
        counted["output_token_details"] = {"reasoning": reasoning}
    return counted


def _token_usage(usage: Any) -> dict[str, Any] | None:
    """The response's usage as OpenAI sent it (``prompt_tokens``, ``completion_tokens``,
    ``total_tokens`` and any details): what LangChain puts in ``response_metadata`` and
    ``llm_output`` under ``"token_usage"``."""
    if usage is None:
        return None
    dump = getattr(usage, "model_dump", None)
    if callable(dump):
        return {key: value for key, value in dump().items() if value is not None}
    return {
        "prompt_tokens": usage.prompt_tokens or 0,
        "completion_tokens": usage.completion_tokens or 0,
        "total_tokens": usage.total_tokens or 0,
    }


def _metadata(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


class ChatOpenAI(BaseChatModel):
    """Chat model over the OpenAI chat-completions protocol (sync, async, streaming).

    Args:
        model: the model name the server knows (``"gpt-4o-mini"``, ``"llama3.1"`` ...).
        base_url: the API root, e.g. ``"http://127.0.0.1:8000/v1"`` for vLLM; default
            ``$OPENAI_BASE_URL``, else OpenAI's own API.
        api_key: default ``$OPENAI_API_KEY``; may be left out when ``base_url`` points at
            a server that needs no key.
        temperature, max_tokens, top_p, seed, frequency_penalty, presence_penalty:
            sampling settings sent with every request (``None``: the server's default).
        stop: stop sequences sent with every request (a call's ``stop`` replaces them).
        timeout: seconds to wait for a response (``None``: the SDK's default, 600 s).
        max_retries: retries after a timeout, a connection error, 408/409/429 or 5xx,
            with exponential backoff (a server's ``retry-after`` is honoured).
        streaming: make ``invoke`` stream internally, so callbacks see every token.
        stream_usage: ask for token usage in streamed responses
            (``stream_options.include_usage``); turn off for servers that reject it.
        extra_body: extra JSON fields for servers with their own options (vLLM's
            ``top_k``, say).
        default_headers: extra HTTP headers on every request.
        cache: the LLM cache option: None (the global cache, if set), True, False or a
            cache of its own (see ``ragline.core.caches``).
        model_name, openai_api_key, openai_api_base: LangChain's names for ``model``,
            ``api_key`` and ``base_url``.

    Raises:
        ConfigurationError: neither an API key nor a ``base_url`` is known, or an option
            is given under both of its names.
        InvalidInputError: an option has a bad value.

    Example:
        >>> model = ChatOpenAI(model="llama3.1", base_url="http://127.0.0.1:11434/v1")
        >>> model.base_url
        'http://127.0.0.1:11434/v1'
    """

    # json_schema first: LangChain's ChatOpenAI defaults to OpenAI's structured outputs
    structured_output_methods = ("json_schema", "function_calling", "json_mode")

    def _combine_llm_outputs(self, llm_outputs: list[dict[str, Any] | None]) -> Any:
        """``generate``'s ``llm_output``: the runs' token usage summed (as LangChain's
        ChatOpenAI adds it up)."""
        from ragline.core.language_models import combine_llm_outputs

        return combine_llm_outputs(llm_outputs)

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        frequency_penalty: float | None = None,
        presence_penalty: float | None = None,
        stop: str | Sequence[str] | None = None,
        timeout: float | None = None,
        max_retries: int = 2,
        streaming: bool = False,
        stream_usage: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        default_headers: Mapping[str, str] | None = None,
        name: str | None = None,
        cache: Any = None,
        model_name: str | None = None,
        openai_api_key: str | None = None,
        openai_api_base: str | None = None,
    ) -> None:
        model = _one_of("model", model, "model_name", model_name)
        model = "gpt-4o-mini" if model is None else model
        api_key = _one_of("api_key", api_key, "openai_api_key", openai_api_key)
        base_url = _one_of("base_url", base_url, "openai_api_base", openai_api_base)
        if not isinstance(model, str) or not model:
            raise InvalidInputError(f"model must be a non-empty str, got {model!r}")
        _check_sampling(
            {"temperature": temperature, "top_p": top_p, "frequency_penalty": frequency_penalty,
             "presence_penalty": presence_penalty, "max_tokens": max_tokens, "seed": seed}
        )  # fmt: skip
        check_optional_number("timeout", timeout, low=0.001)
        check_non_negative_int("max_retries", max_retries)
        for key, text in (("base_url", base_url), ("api_key", api_key)):
            if text is not None and not isinstance(text, str):
                raise InvalidInputError(f"{key} must be a str, got {type(text).__name__}")
        _check_mapping("extra_body", extra_body)
        _check_mapping("default_headers", default_headers)
        base_url, api_key = credentials("ChatOpenAI", base_url, api_key, no_key=_NO_KEY)
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        self.api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.top_p = top_p
        self.seed = seed
        self.frequency_penalty = frequency_penalty
        self.presence_penalty = presence_penalty
        self.stop = stop_list(stop)
        self.timeout = timeout
        self.max_retries = max_retries
        self.streaming = bool(streaming)
        self.stream_usage = bool(stream_usage)
        self.extra_body = dict(extra_body or {})
        self.default_headers = dict(default_headers or {})
        self.name = name
        self.cache = cache
        self._clients = OpenAIClients(self._client_options)

    @property
    def model_name(self) -> str:
        """LangChain's attribute name for ``model`` (reading or setting either is the
        same; ``configurable_fields(model_name=...)`` chooses the model)."""
        return self.model

    @model_name.setter
    def model_name(self, value: str) -> None:
        self.model = value

    def __repr__(self) -> str:
        return f"ChatOpenAI(model={self.model!r}, base_url={self.base_url!r})"

    def __copy__(self) -> ChatOpenAI:
        # configurable_fields sets attributes on a shallow copy: the copy's clients must
        # follow its own base_url/api_key/timeout (it shares ours while those are equal).
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._clients = OpenAIClients(clone._client_options, shared=self._clients)
        return clone

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | bool | Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
        strict: bool | None = None,
    ) -> Runnable[Any, AIMessage]:
        """Return this model bound to offer ``tools``; replies then carry ``tool_calls``.

        Args:
            tools: tools (``@tool``, ``StructuredTool``, ``BaseTool`` subclasses), Python
                functions (name, docstring and typed parameters become the spec; a
                Google-style ``Args:`` section describes the parameters), pydantic model
                classes (their ``Field`` descriptions kept), OpenAI tool dicts
                (``{"type": "function", "function": {...}}``) or bare function specs
                (``{"name", "description", "parameters"}``).
            tool_choice: ``"auto"``, ``"none"``, ``"required"`` (``"any"`` is a synonym),
                the name of one of the tools, ``True`` (call the only tool), or an
                OpenAI tool-choice dict.
            parallel_tool_calls: let the model call several tools at once.
            strict: ask for OpenAI's strict schema adherence (``"strict": true``).

        Raises:
            InvalidInputError: a tool cannot be converted, or ``tool_choice`` names no tool.

        Example:
            >>> def add(a: int, b: int) -> int:
            ...     "Add two integers."
            ...     return a + b
            >>> model = ChatOpenAI(base_url="http://127.0.0.1:8000/v1").bind_tools([add])
            >>> model.kwargs["tools"][0]["function"]["parameters"]["required"]
            ['a', 'b']
        """
        specs = [convert_to_openai_tool(tool, strict=strict) for tool in tools]
        bound: dict[str, Any] = {"tools": specs}
        if tool_choice is not None:
            names = [s["function"]["name"] for s in specs if s.get("type") == "function"]
            bound["tool_choice"] = _tool_choice(tool_choice, names)
        if parallel_tool_calls is not None:
            bound["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(**bound)

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    def get_num_tokens_from_messages(self, messages: Sequence[Any]) -> int:
        """Count the tokens a request with ``messages`` uses, by OpenAI's rule for its
        chat models (3 per message plus its role and content, 3 to prime the reply), as
        LangChain's ChatOpenAI counts them.

        Example:
            >>> ChatOpenAI(api_key="sk-none").get_num_tokens_from_messages([("user", "hello")])
            8
        """
        return self._openai_message_tokens(messages)

    def _get_ls_params(self, stop: Any = None, **kwargs: Any) -> dict[str, Any]:
        """LangChain's ChatOpenAI keys: provider ``openai``, the model, always a
        temperature (``None`` when unset), the token limit when set, the stop sequences
        (the call's, else the model's)."""
        params: dict[str, Any] = {
            "ls_provider": "openai",
            "ls_model_name": kwargs.get("model", self.model),
            "ls_model_type": "chat",
            "ls_temperature": kwargs.get("temperature", self.temperature),
        }
        max_tokens = kwargs.get("max_tokens", self.max_tokens)
        if max_tokens is not None:
            params["ls_max_tokens"] = max_tokens
        stop = stop or self.stop
        if stop:
            params["ls_stop"] = stop
        return params

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return _metadata(
            model=self.model,
            base_url=self.base_url,
            **{key: getattr(self, key) for key in _SAMPLING},
            default_stop=self.stop,
            extra_body=self.extra_body or None,
        )

    # -- clients (created on first use) ---------------------------------------------------

    def _client_options(self) -> dict[str, Any]:
        return client_options(self)

    @property
    def client(self) -> Any:
        """The ``openai.OpenAI`` client (created on first use)."""
        return self._clients.sync()

    @property
    def async_client(self) -> Any:
        """The ``openai.AsyncOpenAI`` client of the running event loop (one per loop)."""
        return self._clients.for_running_loop()

    # -- requests and responses -----------------------------------------------------------

    def _request(
        self, messages: list[BaseMessage], stop: Any, bound: dict[str, Any], *, stream: bool
    ) -> dict[str, Any]:
        unknown = sorted(set(bound) - set(_CALL_OPTIONS))
        if unknown:
            raise InvalidInputError(
                f"ChatOpenAI got unknown option(s) {', '.join(map(repr, unknown))}; "
                f"valid per-call options are {', '.join(_CALL_OPTIONS)} (and stop)"
            )
        _check_sampling(bound)
        _check_mapping("extra_body", bound.get("extra_body"))
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [message_to_openai(m) for m in messages],
        }
        for key in _SAMPLING:
            value = bound.get(key, getattr(self, key))
            if value is not None:
                request[key] = value
        stops = stop_list(stop) if stop is not None else self.stop
        if stops:
            request["stop"] = stops
        for key in ("tools", "tool_choice", "parallel_tool_calls", "response_format", "logprobs"):
            if bound.get(key) is not None:
                request[key] = bound[key]
        extra_body = {**self.extra_body, **(bound.get("extra_body") or {})}
        if extra_body:
            request["extra_body"] = extra_body
        if stream:
            request["stream"] = True
            if self.stream_usage:
                request["stream_options"] = {"include_usage": True}
        return request

    def _message(self, response: Any) -> AIMessage:
        if not response.choices:
            raise RaglineError(f"{self._where()} returned a response without choices")
        choice = response.choices[0]
        tool_calls, invalid = [], []
        for call in choice.message.tool_calls or []:
            raw = call.function.arguments or ""
            try:
                args = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError as err:
                invalid.append(
                    {"name": call.function.name, "args": raw, "id": call.id, "error": str(err)}
                )
                continue
            tool_calls.append({"name": call.function.name, "args": args, "id": call.id})
        refusal = getattr(choice.message, "refusal", None)  # structured outputs' "no"
        return AIMessage(
            choice.message.content or "",
            additional_kwargs={"refusal": refusal} if refusal else {},
            id=response.id,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,  # type: ignore[arg-type]
            usage_metadata=_usage(response.usage),  # type: ignore[arg-type]
            response_metadata=_metadata(
                token_usage=_token_usage(response.usage),
                model_name=response.model,
                finish_reason=choice.finish_reason,
                system_fingerprint=response.system_fingerprint,
            ),
        )

    def _chunk(self, chunk: Any) -> AIMessageChunk:
        content, tool_call_chunks, finish_reason = "", [], None
        if chunk.choices:
            choice = chunk.choices[0]
            content = choice.delta.content or ""
            finish_reason = choice.finish_reason
            for call in choice.delta.tool_calls or []:
                function = call.function
                tool_call_chunks.append(
                    {
                        "name": function.name if function else None,
                        "args": function.arguments if function else None,
                        "id": call.id,
                        "index": call.index,
                    }
                )
        return AIMessageChunk(
            content,
            id=chunk.id,
            tool_call_chunks=tool_call_chunks,  # type: ignore[arg-type]
            usage_metadata=_usage(getattr(chunk, "usage", None)),  # type: ignore[arg-type]
            response_metadata=_metadata(model_name=chunk.model, finish_reason=finish_reason),
        )

    def _where(self) -> str:
        return self.base_url or "the OpenAI API"

    def _map_error(self, err: Exception) -> Exception:
        openai = require("openai", "openai")
        # "the <where>" must read as English with or without a base_url
        where = (
            f"chat completions endpoint {self.base_url}"
            if self.base_url
            else "OpenAI API's chat completions endpoint"
        )
        if isinstance(err, openai.APITimeoutError):
            return StoreConnectionError(
                f"the {where} did not answer within {self.timeout or 600} s "
                f"({self.max_retries + 1} attempt(s)); raise timeout= or check the server"
            )
        if isinstance(err, openai.APIConnectionError):
            return StoreConnectionError(f"cannot reach the {where}: {err.__cause__ or err}")
        if isinstance(err, openai.APIStatusError):
            body = err.body if isinstance(err.body, dict) else {}
            status, detail = err.status_code, body.get("message") or err.message
            if status in (401, 403):
                return ConfigurationError(
                    f"the {where} rejected the API key (HTTP {status}): {detail}"
                )
            if status == 404:
                return ConfigurationError(
                    f"the {where} answered 404 for model {self.model!r}: {detail}"
                )
            if status in (400, 422):
                return InvalidInputError(
                    f"the {where} refused the request (HTTP {status}): {detail}"
                )
            return StoreConnectionError(
                f"the {where} answered HTTP {status} ({self.max_retries + 1} attempt(s)): {detail}"
            )
        if isinstance(err, openai.OpenAIError):
            return RaglineError(f"the {where} failed: {err}")
        return err

    # -- the hooks ------------------------------------------------------------------------

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **bound: Any) -> AIMessage:
        request = self._request(messages, stop, bound, stream=False)
        openai = require("openai", "openai")
        try:
            response = self.client.chat.completions.create(**request)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        return self._message(response)

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, **bound: Any
    ) -> Iterator[AIMessageChunk]:
        request = self._request(messages, stop, bound, stream=True)
        openai = require("openai", "openai")
        try:
            stream = self.client.chat.completions.create(**request)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        try:
            for chunk in stream:
                yield self._chunk(chunk)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        finally:
            stream.close()

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, **bound: Any
    ) -> AIMessage:
        request = self._request(messages, stop, bound, stream=False)
        openai = require("openai", "openai")
        try:
            response = await self.async_client.chat.completions.create(**request)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        return self._message(response)

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, **bound: Any
    ) -> AsyncIterator[AIMessageChunk]:
        request = self._request(messages, stop, bound, stream=True)
        openai = require("openai", "openai")
        try:
            stream = await self.async_client.chat.completions.create(**request)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        try:
            async for chunk in stream:
                yield self._chunk(chunk)
        except openai.OpenAIError as err:
            raise self._map_error(err) from err
        finally:
            await stream.close()


def _tool_choice(choice: str | bool | Mapping[str, Any], names: list[str]) -> Any:
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice is True:  # LangChain's shorthand: call the one tool offered
        if len(names) != 1:
            raise InvalidInputError(
                f"tool_choice=True means 'call the only tool', but {len(names)} tools are "
                "bound; name one of them instead"
            )
        choice = names[0]
    if not isinstance(choice, str):
        raise InvalidInputError(f"tool_choice must be a str, True or a dict, got {choice!r}")
    check_choice(
        "tool_choice", choice, ["auto", "none", "required", "any", *names], error=InvalidInputError
    )
    if choice in ("auto", "none", "required"):
        return choice
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}


def _one_of(name: str, value: Any, alias: str, alias_value: Any) -> Any:
    if value is not None and alias_value is not None and value != alias_value:
        raise ConfigurationError(f"ChatOpenAI got both {name}= and {alias}=; pass only {name}=")
    return value if value is not None else alias_value
