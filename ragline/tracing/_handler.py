"""``OpenTelemetryTracer``: a callback handler that turns every run into a span.

Runs become spans as they start and end, so the span tree is the run tree: a run's span
is the child of its parent run's span, and a root run's span is the child of whatever
span is current when it starts (a server request's span, the application's own span).
Attributes follow OpenTelemetry's GenAI semantic conventions:

==============  ==========================  ===========================================
run             span name                   attributes
==============  ==========================  ===========================================
chat model      ``chat {model}``            ``gen_ai.operation.name`` ``chat``,
                                            ``gen_ai.provider.name``,
                                            ``gen_ai.request.model`` and sampling
                                            options, ``gen_ai.response.model`` / ``id`` /
                                            ``finish_reasons``, ``gen_ai.usage.*``
LLM             ``text_completion {model}`` the same, ``text_completion``
retriever       ``retrieval``               ``gen_ai.retrieval.top_k`` (vector-store
                                            retrievers), ``gen_ai.retrieval.documents``
                                            (ids and scores, as JSON; what the scores
                                            are: ``ragline.retrieval.score_type``)
embeddings      ``embeddings {model}``      ``gen_ai.request.model``,
                                            ``gen_ai.embeddings.dimension.count``,
                                            ``gen_ai.usage.input_tokens`` when reported
                                            (no run: ``configure`` installs the handler
                                            as the embedding calls' observer)
tool            ``execute_tool {name}``     ``gen_ai.tool.name`` / ``description`` /
                                            ``call.id`` (``AgentExecutor``: from the
                                            tool run's metadata ``tool_call_id``)
agent           ``invoke_agent {name}``     ``gen_ai.agent.name`` (an ``AgentExecutor``,
                                            known by its ``serialized`` ``kind``, not
                                            its run name)
other chains    the run name                ``ragline.run.type`` (``chain``,
                                            ``prompt``, ``parser`` ...)
==============  ==========================  ===========================================

Every span also has ``ragline.run.id``. Content (messages, prompts, completions, the
retriever's query and passages, tool arguments and results, chain inputs and outputs)
is recorded only when ``capture_content`` is True.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from numpy import ndarray

from ragline.core.callbacks.base import BaseCallbackHandler
from ragline.core.callbacks.manager import _AGENT_RUNS, _given_name, current_run_id
from ragline.tracing._sdk_spans import sdk_spans

_json_string = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]

__all__ = ["OpenTelemetryTracer"]

# invocation parameter -> GenAI request attribute
_REQUEST_OPTIONS = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
    "n": "gen_ai.request.choice.count",
}
# a model's ``_type`` -> gen_ai.provider.name (an unknown type is given as it is)
_PROVIDERS = {"openai-chat": "openai", "openai": "openai"}
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_MAX_TEXT = 16_384  # longest content attribute, in characters


class OpenTelemetryTracer(BaseCallbackHandler):
    """Report every run to OpenTelemetry as a span (see the module docstring).

    Usually made by :func:`ragline.tracing.configure`; make one yourself to trace only
    some runs (``chain.invoke(x, config={"callbacks": [tracer]})``).

    Args:
        tracer: an ``opentelemetry.trace.Tracer``.
        capture_content: also record messages, prompts, completions, queries, passages
            and tool arguments (default False: they can hold personal data).

    Example:
        >>> from opentelemetry.sdk.trace import TracerProvider  # doctest: +SKIP
        >>> tracer = OpenTelemetryTracer(TracerProvider().get_tracer("app"))  # doctest: +SKIP
    """

    def __init__(self, tracer: Any, *, capture_content: bool = False) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self._tracer = tracer
        self.capture_content = capture_content
        # keyed by the run id's ``int``: a UUID's own hash is a Python method, called on
        # every lookup (seven a traced retriever call)
        self._spans: dict[int, Any] = {}
        # retriever run id -> None, then (k, search_type, scores, score_type) once reported
        self._retrievals: dict[int, tuple[Any, ...] | None] = {}
        self._set_in_context = trace.set_span_in_context
        self._client, self._internal = SpanKind.CLIENT, SpanKind.INTERNAL
        self._status, self._error_code = Status, StatusCode.ERROR
        # the SDK tracer's spans made below its public calls (None: another tracer, or
        # SDK internals not as verified; then tracer.start_span and span.end)
        self._direct = sdk_spans(tracer)

    # ---- spans ----------------------------------------------------------------------
    def _start(
        self,
        name: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        attributes: dict[str, Any],
        *,
        client: bool = False,
    ) -> None:
        parent = self._spans.get(parent_run_id.int) if parent_run_id is not None else None
        if type(run_id) is UUID:  # UUID.__str__'s steps: one Python function fewer
            h = f"{run_id.int:032x}"
            attributes["ragline.run.id"] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        else:
            attributes["ragline.run.id"] = str(run_id)
        kind = self._client if client else self._internal
        if self._direct is not None:
            self._spans[run_id.int] = self._direct.start(name, kind, attributes, parent)
            return
        self._spans[run_id.int] = self._tracer.start_span(
            name,
            context=self._set_in_context(parent) if parent is not None else None,
            kind=kind,
            attributes=attributes,
        )

    def _end(self, run_id: UUID, attributes: Mapping[str, Any] | None = None) -> None:
        span = self._spans.pop(run_id.int, None)
        if span is None:
            return
        if self._direct is not None:
            self._direct.end(span, attributes)
            return
        if attributes:
            span.set_attributes(attributes)
        span.end()

    def _fail(self, run_id: UUID, error: BaseException) -> None:
        span = self._spans.pop(run_id.int, None)
        self._retrievals.pop(run_id.int, None)
        if span is None:
            return
        span.set_attribute("error.type", type(error).__qualname__)
        span.record_exception(error)
        span.set_status(self._status(self._error_code, f"{type(error).__name__}: {error}"))
        span.end()

    # ---- chains, prompts, parsers, agents -------------------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        name: str | None = None,
        run_type: str = "chain",
        **kwargs: Any,
    ) -> None:
        name = name or _given_name(serialized) or "chain"
        attributes: dict[str, Any] = {"ragline.run.type": run_type}
        if run_id in _AGENT_RUNS:  # an AgentExecutor run (serialized is None there)
            attributes["gen_ai.operation.name"] = "invoke_agent"
            attributes["gen_ai.agent.name"] = name
            name = f"invoke_agent {name}"
        if self.capture_content:
            attributes["ragline.input"] = _text(inputs)
        self._start(name, run_id, parent_run_id, attributes)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, {"ragline.output": _text(outputs)} if self.capture_content else None)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._fail(run_id, error)

    # ---- models ---------------------------------------------------------------------
    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        name: str | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        attributes = _request_attributes("chat", name or _given_name(serialized), invocation_params)
        if self.capture_content and messages:
            attributes["gen_ai.input.messages"] = _json([_message(m) for m in messages[0]])
        self._start(_model_span_name(attributes), run_id, parent_run_id, attributes, client=True)

    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        name: str | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        attributes = _request_attributes(
            "text_completion", name or _given_name(serialized), invocation_params
        )
        if self.capture_content and prompts:
            attributes["gen_ai.input.messages"] = _json(
                [{"role": "user", "parts": [{"type": "text", "content": _cut(prompts[0])}]}]
            )
        self._start(_model_span_name(attributes), run_id, parent_run_id, attributes, client=True)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, _response_attributes(response, self.capture_content))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._fail(run_id, error)

    # ---- retrievers -----------------------------------------------------------------
    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "retrieval",
            "ragline.run.type": "retriever",
            "ragline.run.name": name or _given_name(serialized) or "retriever",
        }
        if self.capture_content:
            attributes["gen_ai.retrieval.query.text"] = _cut(str(query))
        key = run_id.int
        self._retrievals[key] = None
        # _start's steps written out: a traced retriever call runs its code once, after a
        # query embedding's forward pass has evicted the caches, where every further
        # Python function costs its own cache misses
        parent = self._spans.get(parent_run_id.int) if parent_run_id is not None else None
        if type(run_id) is UUID:  # UUID.__str__'s steps: one Python function fewer
            h = f"{run_id.int:032x}"
            attributes["ragline.run.id"] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        else:
            attributes["ragline.run.id"] = str(run_id)
        if self._direct is not None:
            self._spans[key] = self._direct.start("retrieval", self._internal, attributes, parent)
            return
        self._spans[key] = self._tracer.start_span(
            "retrieval",
            context=self._set_in_context(parent) if parent is not None else None,
            kind=self._internal,
            attributes=attributes,
        )

    def on_retriever_details(
        self,
        *,
        run_id: UUID,
        k: int,
        search_type: str,
        scores: Sequence[float],
        score_type: str = "native",
    ) -> None:
        """What a vector-store retriever says about its search: k and the scores
        (``score_type``: ``relevance`` in [0, 1], or the store's ``native`` score)."""
        key = run_id.int
        if key in self._retrievals:  # a retriever run of ours (not some other run)
            self._retrievals[key] = (k, search_type, scores, score_type)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        details = self._retrievals.pop(run_id.int, None)
        scores = (details[2] or ()) if details is not None else ()
        documents = documents or ()
        if self.capture_content:
            found = []
            for index, document in enumerate(documents):
                entry: dict[str, Any] = {"id": getattr(document, "id", None)}
                if index < len(scores):
                    entry["score"] = scores[index]
                entry["content"] = _cut(getattr(document, "page_content", ""))
                found.append(entry)
            listed = _json(found)
        else:  # [{"id": ..., "score": ...}, ...] as JSON, written directly: this runs on
            # every traced search; json.dumps of dicts costs several times more, and one
            # growing string makes no enumerate, append or join calls
            listed = "["
            scored = len(scores)
            index = 0
            for document in documents:
                try:  # an attribute read, not a getattr call: documents have ids
                    document_id = document.id
                except AttributeError:
                    document_id = None
                if document_id is None:
                    text = "null"
                elif type(document_id) is str:
                    text = _json_string(document_id)
                else:
                    text = _json_string(str(document_id))
                # x - x is 0.0 for a finite float only (nan and inf give nan): no isfinite
                if index < scored and (score := float(scores[index])) - score == 0.0:
                    listed += f'{{"id": {text}, "score": {score!r}}}, '
                else:
                    listed += f'{{"id": {text}}}, '
                index += 1
            listed = listed[:-2] + "]" if index else "[]"
        span = self._spans.pop(run_id.int, None)  # _end's steps written out (see above)
        if span is None:
            return
        if details is None:
            ended: dict[str, Any] = {"gen_ai.retrieval.documents": listed}
        else:
            k, search_type, _, score_type = details
            ended = {
                "gen_ai.retrieval.documents": listed,
                "gen_ai.retrieval.top_k": k,
                "ragline.retrieval.search_type": search_type,
                "ragline.retrieval.score_type": score_type,
            }  # fmt: skip
        if self._direct is not None:
            self._direct.end(span, ended)
            return
        span.set_attributes(ended)
        span.end()

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._fail(run_id, error)

    # ---- tools ----------------------------------------------------------------------
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        name: str | None = None,
        inputs: dict[str, Any] | None = None,
        tool_call_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = name or _given_name(serialized) or "tool"
        if not tool_call_id and metadata:  # AgentExecutor passes it as the run's metadata
            tool_call_id = metadata.get("tool_call_id")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        description = (serialized or {}).get("description")
        if isinstance(description, str) and description:
            attributes["gen_ai.tool.description"] = _cut(description)
        if isinstance(tool_call_id, str) and tool_call_id:
            attributes["gen_ai.tool.call.id"] = tool_call_id
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = (
                _json(inputs) if inputs is not None else _cut(str(input_str))
            )
        self._start(f"execute_tool {name}", run_id, parent_run_id, attributes)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if not self.capture_content:
            self._end(run_id)
            return
        content = getattr(output, "content", output)
        self._end(run_id, {"gen_ai.tool.call.result": _text(content)})

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._fail(run_id, error)

    # ---- embeddings (no runs: ragline.embeddings.base calls these around each call) ----
    def embedding_span(self, embeddings: Any, method: str, texts: Any) -> Any:
        """Start the span of one embedding call, the child of the running run's span (a
        retriever embedding its query) or else of the current OpenTelemetry span."""
        model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
        # a list's length read here: _count would be one more function run once per call
        count = (
            len(texts) if type(texts) is list else 1 if isinstance(texts, str) else _count(texts)
        )
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "embeddings",
            "ragline.embeddings.class": type(embeddings).__name__,
            "ragline.embeddings.method": method,
            "ragline.embeddings.input_count": count,
        }
        if isinstance(model, str) and model:
            attributes["gen_ai.request.model"] = model
        provider = getattr(embeddings, "_tracing_provider", None)
        if isinstance(provider, str):
            attributes["gen_ai.provider.name"] = provider
        run_id = current_run_id() if self._spans else None
        parent = self._spans.get(run_id.int) if run_id is not None else None
        name = f"embeddings {model}" if attributes.get("gen_ai.request.model") else "embeddings"
        if self._direct is not None:
            return self._direct.start(name, self._client, attributes, parent)
        return self._tracer.start_span(
            name,
            context=self._set_in_context(parent) if parent is not None else None,
            kind=self._client,
            attributes=attributes,
        )

    def end_embedding_span(self, span: Any, result: Any, record: Mapping[str, Any]) -> None:
        """End it with the vectors' dimension and the input tokens when the model said."""
        # _dimension's steps for the two usual results (a float32 matrix, one vector as a
        # list) written out: this runs first thing after the model's forward pass (see
        # on_retriever_start)
        dimension: int | None
        if type(result) is ndarray and len(shape := result.shape) == 2 and shape[0]:
            dimension = shape[1]
        elif type(result) is list and result and type(result[0]) is float:
            dimension = len(result)
        else:
            dimension = _dimension(result)
        # ended as the retriever's span is, with set_attributes (never set_attribute): the
        # retriever's span ends through the same code a moment later, so that code runs
        # warm there (the model's forward pass has just evicted the caches; code run once
        # per call costs its cache misses)
        ended: dict[str, Any] | None = None
        if record and (tokens := record.get("input_tokens")) is not None:
            if dimension is None:
                ended = {"gen_ai.usage.input_tokens": tokens}
            else:
                ended = {"gen_ai.embeddings.dimension.count": dimension,
                         "gen_ai.usage.input_tokens": tokens}  # fmt: skip
        elif dimension is not None:
            ended = {"gen_ai.embeddings.dimension.count": dimension}
        if self._direct is not None:
            self._direct.end(span, ended)
            return
        if ended:
            span.set_attributes(ended)
        span.end()

    def fail_embedding_span(self, span: Any, error: BaseException) -> None:
        span.set_attribute("error.type", type(error).__qualname__)
        span.record_exception(error)
        span.set_status(self._status(self._error_code, f"{type(error).__name__}: {error}"))
        span.end()


def _count(texts: Any) -> int:
    try:
        return len(texts)
    except TypeError:
        return 0


def _dimension(result: Any) -> int | None:
    shape = getattr(result, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[-1]) if (len(shape) == 1 or shape[0]) else None
    if isinstance(result, list) and result:
        first = result[0]
        return len(first) if isinstance(first, (list, tuple)) else len(result)
    return None


# ---- attributes -------------------------------------------------------------------------
def _request_attributes(
    operation: str, name: str | None, params: Mapping[str, Any] | None
) -> dict[str, Any]:
    params = params or {}
    attributes: dict[str, Any] = {"gen_ai.operation.name": operation}
    kind = params.get("_type")
    if isinstance(kind, str):
        attributes["gen_ai.provider.name"] = _PROVIDERS.get(kind, kind)
    model = params.get("model") or params.get("model_name")
    if isinstance(model, str) and model:
        attributes["gen_ai.request.model"] = model
    if name:
        attributes["ragline.run.name"] = name
    for key, attribute in _REQUEST_OPTIONS.items():
        value = params.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            attributes[attribute] = value
    stop = params.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if isinstance(stop, (list, tuple)) and stop and all(isinstance(s, str) for s in stop):
        attributes["gen_ai.request.stop_sequences"] = list(stop)
    return attributes


def _model_span_name(attributes: Mapping[str, Any]) -> str:
    model = attributes.get("gen_ai.request.model") or attributes.get("ragline.run.name")
    operation = attributes["gen_ai.operation.name"]
    return f"{operation} {model}" if model else str(operation)


def _response_attributes(response: Any, capture_content: bool) -> dict[str, Any]:
    """Usage, finish reasons, response model and id of an ``LLMResult``."""
    attributes: dict[str, Any] = {}
    generations = [g for group in getattr(response, "generations", None) or () for g in group]
    llm_output = getattr(response, "llm_output", None) or {}
    input_tokens = output_tokens = 0
    counted = False
    reasons: list[str] = []
    outputs = []
    for generation in generations:
        message = getattr(generation, "message", None)
        info = getattr(generation, "generation_info", None) or {}
        metadata = getattr(message, "response_metadata", None) or {}
        reason = metadata.get("finish_reason") or info.get("finish_reason")
        if isinstance(reason, str):
            reasons.append(reason)
        usage = getattr(message, "usage_metadata", None)
        if usage:
            counted = True
            input_tokens += int(usage.get("input_tokens") or 0)
            output_tokens += int(usage.get("output_tokens") or 0)
        model = metadata.get("model_name")
        if isinstance(model, str) and model:
            attributes["gen_ai.response.model"] = model
        response_id = getattr(message, "id", None)
        if isinstance(response_id, str) and response_id:
            attributes["gen_ai.response.id"] = response_id
        if capture_content:
            if message is not None:
                entry = _message(message)
            else:
                entry = {"role": "assistant", "parts": [{"type": "text", "content": _cut(
                    str(getattr(generation, "text", "")))}]}  # fmt: skip
            if isinstance(reason, str):
                entry["finish_reason"] = reason
            outputs.append(entry)
    if not counted:  # a text-completion model reports usage in llm_output
        usage = llm_output.get("token_usage") or {}
        if usage:
            counted = True
            input_tokens = int(usage.get("prompt_tokens") or 0)
            output_tokens = int(usage.get("completion_tokens") or 0)
    if counted:
        attributes["gen_ai.usage.input_tokens"] = input_tokens
        attributes["gen_ai.usage.output_tokens"] = output_tokens
    if reasons:
        attributes["gen_ai.response.finish_reasons"] = reasons
    model = llm_output.get("model_name")
    if "gen_ai.response.model" not in attributes and isinstance(model, str) and model:
        attributes["gen_ai.response.model"] = model
    if capture_content:
        attributes["gen_ai.output.messages"] = _json(outputs)
    return attributes


def _message(message: Any) -> dict[str, Any]:
    """A message in the GenAI conventions' shape: role and parts."""
    role = _ROLES.get(getattr(message, "type", ""), getattr(message, "type", "user"))
    parts: list[dict[str, Any]] = []
    text = getattr(message, "text", None)
    if callable(text) and not isinstance(text, str):  # a method (older messages); a
        text = text()  # str that is also callable (ragline's, LangChain's) is read as is
    if text is None:
        text = str(getattr(message, "content", ""))
    if text:
        kind = "tool_call_response" if role == "tool" else "text"
        key = "response" if role == "tool" else "content"
        part: dict[str, Any] = {"type": kind, key: _cut(text)}
        if role == "tool":
            part["id"] = getattr(message, "tool_call_id", None)
        parts.append(part)
    for call in getattr(message, "tool_calls", None) or ():
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": call.get("name"),
                "arguments": call.get("args"),
            }
        )
    return {"role": role, "parts": parts}


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "..."


def _json(value: Any) -> str:
    return _cut(json.dumps(value, ensure_ascii=False, default=_plain))


def _plain(value: Any) -> Any:
    """What ``json.dumps`` cannot write itself: documents, messages, anything else."""
    if hasattr(value, "page_content"):
        return {"id": getattr(value, "id", None), "content": value.page_content}
    if hasattr(value, "content") and hasattr(value, "type"):
        return _message(value)
    if hasattr(value, "to_string"):
        return value.to_string()
    return repr(value)


def _text(value: Any) -> str:
    return _cut(value) if isinstance(value, str) else _json(value)
