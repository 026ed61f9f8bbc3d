"""``ragline port``: rewrite a LangChain program's imports as ragline's.

The work is :func:`ragline.cli._port_rewrite.port_source` over the path table
(``_port_table.py``); this module reads the files, writes them back (or prints a unified
diff with ``--diff``) and reports each name it could not map, with the reason.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from ragline.cli._common import CommandError, Commands


def add_port_command(commands: Commands) -> None:
    port = commands.add_parser(
        "port",
        help="rewrite a LangChain program's imports as ragline's (in place, or --diff)",
    )
    port.add_argument(
        "paths", nargs="+", metavar="FILE", help="Python files, or folders (every *.py under)"
    )
    port.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff to stdout instead of rewriting the files",
    )
    port.set_defaults(handler=command_port)


def _python_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.py") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise CommandError(f"{name}: no such file or folder")
    return files


def command_port(args: argparse.Namespace) -> int:
    """Port each file; exit 0 when every LangChain import mapped, 1 when some did not."""
    from ragline.cli._port_rewrite import port_source

    results = []
    for path in _python_files(args.paths):
        try:
            original = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise CommandError(f"{path}: cannot read it as UTF-8 text ({err})") from err
        try:
            result = port_source(original)
        except SyntaxError as err:
            raise CommandError(
                f"{path}:{err.lineno}: not Python this interpreter parses ({err.msg}); "
                "nothing was changed"
            ) from err
        results.append((path, original, result))
    # Every file parsed before any is written: a syntax error changes nothing.
    unmapped = 0
    for path, original, result in results:
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    original.splitlines(keepends=True),
                    result.source.splitlines(keepends=True),
                    fromfile=f"a/{path}",
                    tofile=f"b/{path}",
                )
            )
        elif result.source != original:
            path.write_text(result.source, encoding="utf-8")
        for item in result.unmapped:
            print(f"{path}:{item.describe()}", file=sys.stderr)
        for line, warning in result.warnings:  # shown even with --quiet
            print(f"{path}:{line}: warning: {warning}", file=sys.stderr)
        unmapped += len(result.unmapped)
        if not args.diff and not args.quiet:
            print(f"{path}: {result.changed} import(s) rewritten", file=sys.stderr)
    return 1 if unmapped else 0
