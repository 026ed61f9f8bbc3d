"""Port trial: run LangChain programs as written, and again after ``ragline port``.

Usage (from the repository root, with the dev environment, LangChain installed):

    .venv/bin/python benchmarks/port_trial.py FOLDER [--out DIR] [--only NAME ...]

Every ``*.py`` directly in FOLDER is one program. Each is copied twice into a scratch
folder: one copy runs as it is (LangChain), the other runs after ``ragline port``
rewrote its imports (ragline). Both run in a subprocess with this interpreter, no
network, ``PYTHONHASHSEED=0`` and a 120 s limit, in their own empty working folder (a
program that needs files writes them itself). Their stdout and exit status are compared.

What is normalised before comparing (values that differ from run to run on either
side, not between the two libraries): each side's working folder path (the two copies
run in different scratch folders, so an absolute path a program prints, such as a
loader's resolved ``source``, would differ only by the folder; it becomes
``<workdir>``), UUIDs, memory addresses (``0x7f...``) and ISO-8601 timestamps. Nothing
else is: a program whose output differs in anything else counts as different.

The table gives, for each program: ``same`` or ``DIFF``, both exit statuses, and the
names ``ragline port`` could not map. With ``--out DIR`` each differing program leaves
``NAME.langchain.txt``, ``NAME.ragline.txt`` and ``NAME.diff`` there; those a previous
run left are removed first (all of them; with ``--only``, the named programs' only), so
DIR shows this run's differences and no stale ones. The last line is the identical rate.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TIME_LIMIT_S = 120

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,16}")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(\+\d\d:\d\d|Z)?")


def normalise(text: str, workdir: Path | None = None) -> str:
    """Replace what differs from run to run (the working folder, ids, addresses, clock)
    with placeholders."""
    if workdir is not None:
        # as given and resolved (a linked temp folder), the longer first
        spellings = {str(workdir), str(workdir.resolve())}
        for spelling in sorted(spellings, key=len, reverse=True):
            text = text.replace(spelling, "<workdir>")
    text = _UUID.sub("<uuid>", text)
    text = _ADDRESS.sub("<address>", text)
    return _TIMESTAMP.sub("<time>", text)


@dataclass
class Outcome:
    name: str
    same: bool
    langchain_rc: int
    ragline_rc: int
    unmapped: list[str]
    langchain_out: str
    ragline_out: str
    langchain_err: str
    ragline_err: str


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONHASHSEED="0",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        LANGCHAIN_TRACING_V2="false",
        PYTHONWARNINGS="ignore",
        PYTHONDONTWRITEBYTECODE="1",
    )
    for key in ("OPENAI_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_API_KEY"):
        env.pop(key, None)
    return env


def _run(program: Path, folder: Path) -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            [sys.executable, program.name],
            cwd=folder,
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        return 124, out, f"timed out after {TIME_LIMIT_S} s"
    return done.returncode, done.stdout, done.stderr


def _port(program: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "ragline.cli", "port", "-q", str(program)],
        env=_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"ragline port failed on {program}: {done.stderr.strip()}")
    return [line.split(":", 1)[1].strip() for line in done.stderr.splitlines() if ":" in line]


def trial(program: Path, scratch: Path) -> Outcome:
    sides = {}
    for side in ("langchain", "ragline"):
        folder = scratch / program.stem / side
        folder.mkdir(parents=True)
        shutil.copy(program, folder / program.name)
        sides[side] = folder
    unmapped = _port(sides["ragline"] / program.name)
    lc_rc, lc_out, lc_err = _run(program, sides["langchain"])
    rl_rc, rl_out, rl_err = _run(program, sides["ragline"])
    lc_out = normalise(lc_out, sides["langchain"])
    rl_out = normalise(rl_out, sides["ragline"])
    same = lc_rc == rl_rc and lc_out == rl_out
    return Outcome(program.stem, same, lc_rc, rl_rc, unmapped, lc_out, rl_out, lc_err, rl_err)


_WRITTEN = ("langchain.txt", "ragline.txt", "diff")  # NAME.<suffix>: what a difference leaves


def _clear_differences(out: Path, names: list[str] | None) -> None:
    """Remove the files ``_write_difference`` left in ``out`` before: every program's,
    or only those of ``names``. Nothing else in ``out`` is touched."""
    if not out.is_dir():
        return
    for suffix in _WRITTEN:
        if names is None:
            stale = list(out.glob(f"*.{suffix}"))
        else:
            stale = [out / f"{name}.{suffix}" for name in names]
        for path in stale:
            if path.is_file():
                path.unlink()


def _write_difference(outcome: Outcome, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for side, text, err, rc in (
        ("langchain", outcome.langchain_out, outcome.langchain_err, outcome.langchain_rc),
        ("ragline", outcome.ragline_out, outcome.ragline_err, outcome.ragline_rc),
    ):
        body = f"{text}\n--- exit status {rc}; stderr (last 3000 characters):\n{err[-3000:]}"
        (out / f"{outcome.name}.{side}.txt").write_text(body, encoding="utf-8")
    diff = difflib.unified_diff(
        outcome.langchain_out.splitlines(keepends=True),
        outcome.ragline_out.splitlines(keepends=True),
        fromfile="langchain",
        tofile="ragline",
    )
    (out / f"{outcome.name}.diff").write_text("".join(diff), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder of LangChain programs (*.py)")
    parser.add_argument("--out", type=Path, help="where to leave each difference")
    parser.add_argument("--only", nargs="*", default=[], help="program names to run")
    args = parser.parse_args(argv)
    programs = sorted(p for p in args.folder.glob("*.py") if p.is_file())
    if args.only:
        programs = [p for p in programs if p.stem in set(args.only)]
    if not programs:
        parser.error(f"no *.py programs in {args.folder}")
    if args.out:
        _clear_differences(args.out, [p.stem for p in programs] if args.only else None)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="port-trial-") as scratch:
        for program in programs:
            outcome = trial(program, Path(scratch))
            outcomes.append(outcome)
            mark = "same" if outcome.same else "DIFF"
            unmapped = ", ".join(outcome.unmapped) or "-"
            print(
                f"{outcome.name:<40} {mark:<5} rc {outcome.langchain_rc:>3} / "
                f"{outcome.ragline_rc:<3} unmapped: {unmapped}",
                flush=True,
            )
            if not outcome.same and args.out:
                _write_difference(outcome, args.out)
    same = sum(o.same for o in outcomes)
    print(f"identical: {same}/{len(outcomes)} ({100 * same / len(outcomes):.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
