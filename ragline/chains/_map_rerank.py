"""Map-rerank: answer from each document alone with a score, keep the best answer."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from ragline.chains import _prompts
from ragline.chains._base import (
    BaseCombineDocumentsChain,
    ChainOptions,
    Prepared,
    _Final,
    _require_variable,
    concurrency_config,
    document_variable_from,
)
from ragline.chains._steps import batch
from ragline.core import BasePromptTemplate, Document, InvalidInputError, Runnable
from ragline.core._checks import check_optional_positive_int
from ragline.core._drive import Effect, Emit

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MapRerankDocumentsChain", "parse_scored_answer"]

# The reply of the default prompt (also for its RegexParser, classic wiring): the answer,
# then "Score: <number>" on the last line (surrounding blank space and the case are free).
SCORED_REPLY = r"(?is)^\s*(.*?)\s*Score:\s*(-?\d+(?:\.\d+)?)\s*\Z"
_SCORED = re.compile(SCORED_REPLY)


def _scored_step(text: str, keys: tuple[str, str] = ("answer", "score")) -> dict[str, str]:
    """``{answer key: the answer, score key: the score as written}`` (see
    :func:`parse_scored_answer`)."""
    match = _SCORED.match(text.strip())
    if match is None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise ValueError(f"the model output does not end with 'Score: <number>': {shown!r}")
    return {keys[0]: match.group(1).strip(), keys[1]: match.group(2)}


def parse_scored_answer(text: str) -> tuple[str, float]:
    """Split a model output ending in ``Score: <number>`` into answer and score.

    Raises:
        ValueError: the text does not end with a score line.

    Example:
        >>> parse_scored_answer("Paris.\\nScore: 90")
        ('Paris.', 90.0)
    """
    step = _scored_step(text)
    return step["answer"], float(step["score"])


class MapRerankDocumentsChain(BaseCombineDocumentsChain):
    """Ask each document for an answer and a score; return the best-scored answer.

    Calls run concurrently (bounded by ``max_concurrency``). Ties go to the earlier
    document. With ``return_intermediate_steps`` (and an ``output_key``) the steps are
    ``[{"answer": ..., "score": "<as written>"}, ...]`` in document order.

    Args:
        llm: the model.
        prompt: asks for an answer followed by a last line ``Score: <number>``.
        max_concurrency: how many calls run at once (default: the config's).
        question_key: the question variable of the default prompt.
        llm_chain: LangChain's classic wiring instead of ``llm`` and ``prompt``: an
            ``LLMChain`` whose prompt's ``output_parser`` reads each reply into a dict
            (``load_qa_chain(chain_type="map_rerank")`` builds this one); the chain then
            takes ``input_documents`` and returns ``{"output_text": answer}``, as there.
        rank_key, answer_key: the keys of the parsed reply that hold the score and the
            answer (classic wiring).
        (others as :class:`BaseCombineDocumentsChain`)

    Raises:
        ChainStepError: a call failed, or its output had no score (names the document).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["Lyon\\nScore: 20", "Paris\\nScore: 95"])
        >>> MapRerankDocumentsChain(model, max_concurrency=1).invoke(
        ...     {"context": [Document("1"), Document("2")], "question": "?"})
        'Paris'
    """

    def __init__(
        self,
        llm: Runnable[Any, Any] | None = None,
        *,
        prompt: BasePromptTemplate | None = None,
        max_concurrency: int | None = None,
        question_key: str = "question",
        llm_chain: Any = None,
        rank_key: str = "score",
        answer_key: str = "answer",
        metadata_keys: list[str] | None = None,
        **options: Unpack[ChainOptions],
    ) -> None:
        # LangChain's classic wiring: the LLMChain that runs (its prompt, and the prompt's
        # output parser, are read at each run, so a program may edit them)
        self.llm_chain = llm_chain
        if llm_chain is not None:
            # LangChain's classic chain: takes input_documents, returns output_text
            llm, prompt = llm_chain.llm, llm_chain.prompt
            document_variable_from(llm_chain, options, "MapRerankDocumentsChain")
            options.setdefault("input_key", "input_documents")
            options.setdefault("output_key", "output_text")
        if llm is None:
            raise InvalidInputError(
                "MapRerankDocumentsChain needs llm=... (or llm_chain=LLMChain(...))"
            )
        if metadata_keys is not None:
            raise InvalidInputError(
                "MapRerankDocumentsChain(metadata_keys=...) is not supported; the "
                "intermediate steps name each document's answer in document order"
            )
        super().__init__(llm, **options)
        self.prompt = prompt or _prompts.map_rerank_prompt(question_key)
        _require_variable(self.prompt, self.document_variable_name, "prompt")
        self.max_concurrency = check_optional_positive_int("max_concurrency", max_concurrency)
        self.rank_key = rank_key
        self.answer_key = answer_key
        self.metadata_keys = metadata_keys

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return [self.llm_chain.prompt if self.llm_chain is not None else self.prompt]

    @property
    def output_keys(self) -> list[str]:
        """The answer's key, then ``intermediate_steps`` when they are returned."""
        keys = [self.output_key or "output_text"]
        if self.llm_chain is not None and self.return_intermediate_steps:
            keys.append("intermediate_steps")
        return keys

    def get_name(self) -> str:
        if self.name:
            return self.name
        return "MapRerankDocumentsChain" if self.llm_chain else "map_rerank_documents_chain"

    def _config(self) -> dict[str, Any]:
        return concurrency_config(self.max_concurrency)

    def _best(self, outputs: list[Any], documents: list[Document]) -> _Final:
        self._raise_first_failure(outputs, documents, "map-rerank")
        # the step keeps the score as written (LangChain's parser gives the text)
        replies = [str(output) for output in outputs]
        return self._ranked(replies, _scored_step, documents, ("answer", "score"))

    def _ranked(
        self,
        replies: list[Any],
        read: Callable[[Any], dict[str, Any]],
        documents: list[Document],
        keys: tuple[str, str],
    ) -> _Final:
        """Each reply ``read`` into a step; the best score (``keys``: the answer's, the
        score's; read as a number) wins, ties to the earlier document."""
        answer_key, rank_key = keys
        scored: list[dict[str, Any]] = []
        ranks: list[float] = []
        for index, reply in enumerate(replies):
            try:
                parsed = read(reply)
                ranks.append(float(parsed[rank_key]))
            except (ValueError, KeyError) as err:
                raise self._step_error("map-rerank", index, documents, err) from err
            scored.append(parsed)
        best = max(range(len(scored)), key=lambda i: (ranks[i], -i))
        return _Final(answer=scored[best][answer_key], steps=scored)

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        if self.llm_chain is not None:
            return (yield from self._classic_steps(documents, variables))
        outputs = yield batch(
            self._model_chain(self.prompt, "map"),
            self._inputs_or_empty(documents, variables),
            self._config(),
        )
        return self._best(outputs, documents)

    def _classic_steps(
        self, documents: list[Document], variables: dict[str, Any]
    ) -> Generator[Effect | Emit, Any, _Final]:
        """LangChain's wiring: one ``apply`` of the LLMChain over every document (one run
        of it, one model call per document), each reply parsed by the prompt's output
        parser into ``rank_key`` / ``answer_key``; the best score wins, ties to the
        earlier document."""
        chain = self.llm_chain
        wanted = set(chain.prompt.input_variables)
        inputs = [
            {key: value for key, value in one.items() if key in wanted}
            for one in self._inputs_or_empty(documents, variables)
        ]
        outputs = yield Effect(chain.apply, chain.aapply, inputs)
        parser = chain.prompt.output_parser
        keys = (self.answer_key, self.rank_key)
        # no parser on the prompt: ragline's reading of "...\nScore: <n>"
        read = parser.parse if parser is not None else lambda text: _scored_step(str(text), keys)
        return self._ranked([output[chain.output_key] for output in outputs], read, documents, keys)
