"""Fixtures for the agent tests: a real OpenAI-protocol server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _openai_server import OpenAITestServer


@pytest.fixture
def openai_server() -> Iterator[OpenAITestServer]:
    """A started OpenAITestServer (see tests/_openai_server.py), stopped after the test."""
    with OpenAITestServer() as server:
        yield server
