"""Router chains: a model picks which chain answers (LangChain's ``MultiPromptChain``,
``LLMRouterChain``, ``RouterOutputParser``, ``MultiRouteChain``, ``RouterChain``).

A router chain maps the inputs to a :class:`Route`: the name of a destination chain
(``None`` for the default) and the inputs to give it. ``LLMRouterChain`` asks a model,
whose reply ``RouterOutputParser`` reads: a JSON object (in a Markdown fence or not)
with a string ``"destination"`` and ``"next_inputs"``; ``"DEFAULT"`` (any case) means
the default chain, and the next inputs go under ``"input"``. ``MultiRouteChain`` runs
the router, then the chosen chain on the next inputs; an unknown destination is a
``ValueError`` unless ``silent_errors`` sends it to the default chain.

``MultiPromptChain.from_prompts`` builds the whole thing from ``prompt_infos`` (each a
dict with ``name``, ``description`` and ``prompt_template`` taking ``{input}``): an
``LLMChain`` per prompt and a router prompt that lists them. The router prompt is
ragline's own wording; like LangChain's it is a template with ``{destinations}`` that,
once filled, takes ``{input}``.

``MultiRetrievalQAChain.from_retrievers`` does the same over retrievers
(``retriever_infos``: dicts with ``name``, ``description``, ``retriever`` and optionally a
``prompt``): a ``RetrievalQA`` per retriever, answering under ``"result"``; the router
passes the (perhaps rewritten) question on under ``"query"``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, NamedTuple

from ragline.chains._chain import Chain
from ragline.chains._conversation import ConversationChain
from ragline.chains._llm_chain import LLMChain
from ragline.core import BaseOutputParser, OutputParserException, PromptTemplate
from ragline.core._partial_json import parse_json_reply
from ragline.core.exceptions import ConfigurationError, UnsupportedMethodError

__all__ = [
    "MULTI_PROMPT_ROUTER_TEMPLATE",
    "MULTI_RETRIEVAL_ROUTER_TEMPLATE",
    "LLMRouterChain",
    "MultiPromptChain",
    "MultiRetrievalQAChain",
    "MultiRouteChain",
    "Route",
    "RouterChain",
    "RouterOutputParser",
]

MULTI_PROMPT_ROUTER_TEMPLATE = """\
Choose which of the prompts below should handle the user's input. Each prompt is \
listed with what it is good at. You may also rewrite the input so that the chosen \
prompt answers it better; if no prompt fits, choose "DEFAULT".

Reply with a Markdown code block holding a JSON object and nothing else:

```json
{{{{
    "destination": string \\ the name of the chosen prompt, or "DEFAULT"
    "next_inputs": string \\ the input for that prompt (the original or a rewrite)
}}}}
```

Prompts (name: what it is good at):
{destinations}

Input:
{{input}}

Reply:
"""

MULTI_RETRIEVAL_ROUTER_TEMPLATE = """\
Choose which of the question-answering systems below should answer the user's input. \
Each system is listed with the questions it answers well. You may also rewrite the \
input so that the chosen system answers it better; if no system fits, choose "DEFAULT".

Reply with a Markdown code block holding a JSON object and nothing else:

```json
{{{{
    "destination": string \\ the name of the chosen system, or "DEFAULT"
    "next_inputs": string \\ the question for that system (the original or a rewrite)
}}}}
```

Systems (name: what it answers well):
{destinations}

Input:
{{input}}

Reply:
"""


class Route(NamedTuple):
    """Where a router sends the inputs: a destination name (``None``: the default
    chain) and the inputs for it."""

    destination: str | None
    next_inputs: dict[str, Any]


class RouterOutputParser(BaseOutputParser[dict[str, Any]]):
    """Read a router model's reply (module docstring).

    Args:
        default_destination: the name that means the default chain (``"DEFAULT"``).
        next_inputs_type: the type ``"next_inputs"`` must have (``str``).
        next_inputs_inner_key: the key the next inputs go under (``"input"``).

    Raises:
        OutputParserException: the reply is not such a JSON object.

    Example:
        >>> RouterOutputParser().parse('{"destination": "math", "next_inputs": "2+2"}')
        {'destination': 'math', 'next_inputs': {'input': '2+2'}}
    """

    default_destination: str = "DEFAULT"
    next_inputs_type: type = str
    next_inputs_inner_key: str = "input"

    def __repr__(self) -> str:
        return "RouterOutputParser()"

    def parse(self, text: str) -> dict[str, Any]:
        try:
            parsed = _checked_json(text, ["destination", "next_inputs"])
            if not isinstance(parsed["destination"], str):
                raise ValueError(
                    f"'destination' must be a string, got {type(parsed['destination']).__name__}"
                )
            if not isinstance(parsed["next_inputs"], self.next_inputs_type):
                raise ValueError(
                    f"'next_inputs' must be "
                    f"{getattr(self.next_inputs_type, '__name__', self.next_inputs_type)}, "
                    f"got {type(parsed['next_inputs']).__name__}"
                )
            parsed["next_inputs"] = {self.next_inputs_inner_key: parsed["next_inputs"]}
            destination = parsed["destination"].strip()
            is_default = destination.lower() == self.default_destination.lower()
            parsed["destination"] = None if is_default else destination
            return parsed
        except Exception as err:
            raise OutputParserException(
                f"cannot read the router's reply {text!r:.300}: {err}"
            ) from err


def _checked_json(text: str, keys: list[str]) -> dict[str, Any]:
    try:
        parsed = parse_json_reply(text)
    except ValueError as err:
        raise OutputParserException(f"no JSON in it ({err})") from err
    if not isinstance(parsed, dict):
        raise OutputParserException(f"a JSON object is needed, got {parsed!r:.80}")
    missing = [key for key in keys if key not in parsed]
    if missing:
        raise OutputParserException(
            f"the object lacks {', '.join(map(repr, missing))} (it has {sorted(parsed)})"
        )
    return parsed


class RouterChain(Chain):
    """A chain whose outputs are ``destination`` and ``next_inputs``; :meth:`route`
    gives them as a :class:`Route`."""

    @property
    def output_keys(self) -> list[str]:
        return ["destination", "next_inputs"]

    def route(self, inputs: dict[str, Any], callbacks: Any = None) -> Route:
        """Where ``inputs`` go."""
        result = self.invoke(inputs, {"callbacks": callbacks} if callbacks else None)
        return Route(result["destination"], result["next_inputs"])

    async def aroute(self, inputs: dict[str, Any], callbacks: Any = None) -> Route:
        """Async :meth:`route`."""
        result = await self.ainvoke(inputs, {"callbacks": callbacks} if callbacks else None)
        return Route(result["destination"], result["next_inputs"])

    @abstractmethod
    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        """Compute ``destination`` and ``next_inputs``."""


class LLMRouterChain(RouterChain):
    """A router that asks a model (``llm_chain``, an ``LLMChain`` whose prompt has an
    output parser, usually :class:`RouterOutputParser`).

    Raises:
        ValueError: the prompt has no output parser.
    """

    llm_chain: Any

    def __post_init__(self) -> None:
        if getattr(self.llm_chain.prompt, "output_parser", None) is None:
            raise ValueError(
                "LLMRouterChain requires base llm_chain prompt to have an output parser "
                "that converts LLM text output to a dictionary with keys 'destination' "
                "and 'next_inputs'. Received a prompt with no output parser."
            )

    @property
    def input_keys(self) -> list[str]:
        return list(self.llm_chain.input_keys)

    @classmethod
    def from_llm(cls, llm: Any, prompt: Any, **kwargs: Any) -> LLMRouterChain:
        """The router over ``LLMChain(llm=llm, prompt=prompt)``."""
        return cls(llm_chain=LLMChain(llm=llm, prompt=prompt), **kwargs)

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        prediction = self.llm_chain.predict(callbacks=callbacks, **inputs)
        return dict(self.llm_chain.prompt.output_parser.parse(prediction))


class MultiRouteChain(Chain):
    """Send the inputs to the chain ``router_chain`` picks (module docstring).

    Args:
        router_chain: picks the destination.
        destination_chains: the chains by name.
        default_chain: for ``None`` (and, with ``silent_errors``, unknown names).
        silent_errors: send an unknown destination to the default chain.
    """

    router_chain: Any
    destination_chains: Mapping[str, Any]
    default_chain: Any
    silent_errors: bool = False

    @property
    def input_keys(self) -> list[str]:
        return list(self.router_chain.input_keys)

    @property
    def output_keys(self) -> list[str]:
        return []

    def _target(self, route: Route) -> Any:
        if not route.destination:
            return self.default_chain
        if route.destination in self.destination_chains:
            return self.destination_chains[route.destination]
        if self.silent_errors:
            return self.default_chain
        raise ValueError(f"Received invalid destination chain name '{route.destination}'")

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        route = self.router_chain.route(inputs, callbacks=callbacks)
        if run_manager is not None:
            run_manager.on_text(f"{route.destination}: {route.next_inputs}", verbose=self.verbose)
        target = self._target(route)
        return dict(
            target.invoke(route.next_inputs, {"callbacks": callbacks} if callbacks else None)
        )

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        route = await self.router_chain.aroute(inputs, callbacks=callbacks)
        if run_manager is not None:
            await run_manager.on_text(
                f"{route.destination}: {route.next_inputs}", verbose=self.verbose
            )
        target = self._target(route)
        config = {"callbacks": callbacks} if callbacks else None
        return dict(await target.ainvoke(route.next_inputs, config))


class MultiPromptChain(MultiRouteChain):
    """Route the input to one of several prompts (see :meth:`from_prompts`); its output
    is the chosen chain's ``"text"``."""

    @property
    def output_keys(self) -> list[str]:
        return ["text"]

    @classmethod
    def from_prompts(
        cls,
        llm: Any,
        prompt_infos: list[dict[str, str]],
        default_chain: Any = None,
        **kwargs: Any,
    ) -> MultiPromptChain:
        """The chain from ``prompt_infos`` (dicts with ``name``, ``description`` and
        ``prompt_template``; each template takes ``{input}``). The default chain is a
        ``ConversationChain`` answering under ``"text"`` unless ``default_chain`` is
        given."""
        destinations = "\n".join(f"{p['name']}: {p['description']}" for p in prompt_infos)
        router_prompt = PromptTemplate(
            template=MULTI_PROMPT_ROUTER_TEMPLATE.format(destinations=destinations),
            input_variables=["input"],
            output_parser=RouterOutputParser(),
        )
        router_chain = LLMRouterChain.from_llm(llm, router_prompt)
        destination_chains = {
            p["name"]: LLMChain(
                llm=llm,
                prompt=PromptTemplate(template=p["prompt_template"], input_variables=["input"]),
            )
            for p in prompt_infos
        }
        default = default_chain or ConversationChain(llm=llm, output_key="text")
        return cls(
            router_chain=router_chain,
            destination_chains=destination_chains,
            default_chain=default,
            **kwargs,
        )


class MultiRetrievalQAChain(MultiRouteChain):
    """Route the question to one of several retrievers' ``RetrievalQA`` chains (see
    :meth:`from_retrievers`); its output is the chosen chain's ``"result"``."""

    @property
    def output_keys(self) -> list[str]:
        return ["result"]

    @classmethod
    def from_retrievers(
        cls,
        llm: Any,
        retriever_infos: list[dict[str, Any]],
        default_retriever: Any = None,
        default_prompt: Any = None,
        default_chain: Any = None,
        *,
        default_chain_llm: Any = None,
        **kwargs: Any,
    ) -> MultiRetrievalQAChain:
        """The chain from ``retriever_infos`` (dicts with ``name``, ``description``,
        ``retriever`` and an optional ``prompt`` over ``{context}`` and ``{question}``):
        ``RetrievalQA.from_llm`` per retriever. The default chain, for ``"DEFAULT"``, is
        ``default_chain``; else a ``RetrievalQA`` over ``default_retriever`` (with
        ``default_prompt``); else a ``ConversationChain`` on ``default_chain_llm``
        taking ``"query"`` and answering under ``"result"``.

        Raises:
            ConfigurationError: ``default_prompt`` without ``default_retriever`` (a
                ``ValueError``, as LangChain's).
            UnsupportedMethodError: no default chain, retriever or ``default_chain_llm``
                (a ``NotImplementedError`` and printed as one, LangChain's type for it:
                it no longer builds a model for you).
        """
        from ragline.chains._conversation import CONVERSATION_PROMPT
        from ragline.chains._retrieval import RetrievalQA

        if default_prompt is not None and default_retriever is None:
            raise ConfigurationError(
                "MultiRetrievalQAChain.from_retrievers: default_prompt is used only with "
                "default_retriever; pass default_retriever too"
            )
        if default_chain is None and default_retriever is None and default_chain_llm is None:
            raise UnsupportedMethodError(
                "MultiRetrievalQAChain.from_retrievers needs a default: default_chain, "
                "default_retriever, or default_chain_llm (the model of the conversation "
                "chain that answers when no retriever fits)"
            )
        destinations = "\n".join(f"{r['name']}: {r['description']}" for r in retriever_infos)
        router_prompt = PromptTemplate(
            template=MULTI_RETRIEVAL_ROUTER_TEMPLATE.format(destinations=destinations),
            input_variables=["input"],
            output_parser=RouterOutputParser(next_inputs_inner_key="query"),
        )
        destination_chains = {
            r["name"]: RetrievalQA.from_llm(llm, prompt=r.get("prompt"), retriever=r["retriever"])
            for r in retriever_infos
        }
        if default_chain is None and default_retriever is not None:
            default_chain = RetrievalQA.from_llm(
                llm, prompt=default_prompt, retriever=default_retriever
            )
        elif default_chain is None:
            template = CONVERSATION_PROMPT.template.replace("{input}", "{query}")
            default_chain = ConversationChain(
                llm=default_chain_llm,
                prompt=PromptTemplate(template=template, input_variables=["history", "query"]),
                input_key="query",
                output_key="result",
            )
        return cls(
            router_chain=LLMRouterChain.from_llm(llm, router_prompt),
            destination_chains=destination_chains,
            default_chain=default_chain,
            **kwargs,
        )
