"""Map-rerank: answer from each document alone with a score, keep the best answer."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ragline.chains import _prompts
from ragline.chains._base import (
    BaseCombineDocumentsChain,
    ChainOptions,
    Prepared,
    _Final,
    _require_variable,
    concurrency_config,
)
from ragline.chains._steps import batch
from ragline.core import BasePromptTemplate, Document, Runnable
from ragline.core._checks import check_optional_positive_int

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MapRerankDocumentsChain", "parse_scored_answer"]

# "<answer>\nScore: <number>" with the score on the last line.
_SCORED = re.compile(
    r"^(?P<answer>.*?)\s*Score:\s*(?P<score>-?\d+(?:\.\d+)?)\s*\Z", re.DOTALL | re.IGNORECASE
)


def _score_text(text: str) -> str:
    match = _SCORED.match(text.strip())
    return match.group("score") if match else ""


def parse_scored_answer(text: str) -> tuple[str, float]:
    """Split a model output ending in ``Score: <number>`` into answer and score.

    Raises:
        ValueError: the text does not end with a score line.

    Example:
        >>> parse_scored_answer("Paris.\\nScore: 90")
        ('Paris.', 90.0)
    """
    match = _SCORED.match(text.strip())
    if match is None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise ValueError(f"the model output does not end with 'Score: <number>': {shown!r}")
    return match.group("answer").strip(), float(match.group("score"))


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
        llm: Runnable[Any, Any],
        *,
        prompt: BasePromptTemplate | None = None,
        max_concurrency: int | None = None,
        question_key: str = "question",
        **options: Unpack[ChainOptions],
    ) -> None:
        super().__init__(llm, **options)
        self.prompt = prompt or _prompts.map_rerank_prompt(question_key)
        _require_variable(self.prompt, self.document_variable_name, "prompt")
        self.max_concurrency = check_optional_positive_int("max_concurrency", max_concurrency)

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return [self.prompt]

    def get_name(self) -> str:
        return self.name or "map_rerank_documents_chain"

    def _config(self) -> dict[str, Any]:
        return concurrency_config(self.max_concurrency)

    def _best(self, outputs: list[Any], documents: list[Document]) -> _Final:
        self._raise_first_failure(outputs, documents, "map-rerank")
        scored: list[dict[str, Any]] = []
        ranks: list[float] = []
        for index, output in enumerate(outputs):
            try:
                answer, score = parse_scored_answer(str(output))
            except ValueError as err:
                raise self._step_error("map-rerank", index, documents, err) from err
            # the step keeps the score as written (LangChain's parser gives the text);
            # the ranking reads it as a number
            scored.append({"answer": answer, "score": _score_text(str(output))})
            ranks.append(score)
        best = max(range(len(scored)), key=lambda i: (ranks[i], -i))
        return _Final(answer=scored[best]["answer"], steps=scored)

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        outputs = yield batch(
            self._model_chain(self.prompt, "map"),
            self._inputs_or_empty(documents, variables),
            self._config(),
        )
        return self._best(outputs, documents)
