"""The README's quick example runs as written (against a local OpenAI-protocol server)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._openai_server import CHAT_PATH, OpenAITestServer, Reply, chat_completion

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.slow
def test_quick_example_runs(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    with OpenAITestServer() as server:
        server.enqueue(CHAT_PATH, Reply(body=chat_completion("Several times a year.")))
        env = {
            **os.environ,
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test",
            "RAGLINE_MODEL": "local-model",
        }
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout == "Several times a year. ['etna.txt']\n"
        (request,) = server.requests_to(CHAT_PATH)
    assert request.body["model"] == "local-model"
    assert (
        "Mount Etna in Sicily erupts several times a year."
        in request.body["messages"][0]["content"]
    )
    assert (tmp_path / "my-store").is_dir()
