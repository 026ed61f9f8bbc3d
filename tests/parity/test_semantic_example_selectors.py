"""Parity: SemanticSimilarityExampleSelector and MaxMarginalRelevanceExampleSelector
against langchain_core's, over the same hand-made embedding and in-memory store (queries
chosen so that no two examples score the same: equal scores are a listed difference).
"""

from __future__ import annotations

from typing import Any

from langchain_core.example_selectors import (
    MaxMarginalRelevanceExampleSelector as LCMaxMarginal,
)
from langchain_core.example_selectors import (
    SemanticSimilarityExampleSelector as LCSemantic,
)
from langchain_core.prompts import FewShotPromptTemplate as LCFewShot
from langchain_core.prompts import PromptTemplate as LCPrompt

import ragline.core as rl
from tests.parity.test_retrievers_compression import LC, RL

COVERS = {"core.SemanticSimilarityExampleSelector", "core.MaxMarginalRelevanceExampleSelector"}

EXAMPLES = [
    {"q": "my cat sleeps", "a": "cats nap"},
    {"q": "the dog barks", "a": "dogs bark"},
    {"q": "the moon rises", "a": "moon up"},
    {"q": "a bird in a tree", "a": "bird"},
]


def run(m: dict[str, Any], semantic: Any, mmr: Any, prompt: Any, few_shot: Any) -> list[Any]:
    nearest = semantic.from_examples(EXAMPLES, m["embeddings"], m["store"], k=2)
    keyed = semantic.from_examples(EXAMPLES, m["embeddings"], m["store"], k=1, input_keys=["q"])
    keyed.add_example({"q": "sun shines", "a": "sunny"})
    diverse = mmr.from_examples(EXAMPLES, m["embeddings"], m["store"], k=2, fetch_k=3)
    shots = few_shot(
        example_selector=nearest,
        example_prompt=prompt.from_template("{q} -> {a}"),
        suffix="{q} ->",
        input_variables=["q"],
    )
    return [
        nearest.select_examples({"q": "cats cats moon"}),
        keyed.select_examples({"q": "sun", "other": "dog"}),
        diverse.select_examples({"q": "cats moon moon"}),
        shots.format(q="dog dog tree"),
    ]


def test_selectors_pick_the_same_examples() -> None:
    theirs = run(LC, LCSemantic, LCMaxMarginal, LCPrompt, LCFewShot)
    ours = run(
        RL,
        rl.SemanticSimilarityExampleSelector,
        rl.MaxMarginalRelevanceExampleSelector,
        rl.PromptTemplate,
        rl.FewShotPromptTemplate,
    )
    assert ours == theirs
    assert ours[0] == [EXAMPLES[0], EXAMPLES[2]]
    assert ours[1] == [{"q": "sun shines", "a": "sunny"}]
