"""CSVLoader: one Document per row, streamed."""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragline.core import Document, InvalidInputError, LoaderError
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import check_encoding, check_path, locate_decode_error, open_text

__all__ = ["CSVLoader"]

CSV_ARGS = frozenset(
    {
        "delimiter",
        "quotechar",
        "escapechar",
        "doublequote",
        "skipinitialspace",
        "lineterminator",
        "quoting",
        "strict",
        "dialect",
        "fieldnames",
    }
)


class CSVLoader(BaseLoader):
    """Load a CSV file, one Document per row.

    A row's ``page_content`` is one ``"column: value"`` line per content column
    (names and values stripped of surrounding whitespace), in header order. Its
    metadata holds ``source`` (the file path, or the row's ``source_column``
    value), ``row`` (0-based index of the data row) and every ``metadata_columns``
    value as read.

    Ragged rows are an error: a row with more or fewer cells than the header
    raises LoaderError naming the file, the data row (0-based, as in
    ``metadata["row"]``), its line number and both cell counts. Blank lines are
    skipped.

    Args:
        file_path: the CSV file.
        source_column: take ``metadata["source"]`` from this column.
        metadata_columns: columns copied into metadata; left out of the content
            unless also in ``content_columns``.
        csv_args: options for :func:`csv.reader`: ``delimiter``, ``quotechar``,
            ``escapechar``, ``doublequote``, ``skipinitialspace``,
            ``lineterminator``, ``quoting``, ``strict``, ``dialect``, and
            ``fieldnames`` (the header, when the file has none).
        encoding: the file's encoding; ``None`` means UTF-8.
        autodetect_encoding: pick the encoding as :class:`TextLoader` does.
        content_columns: only these columns form the content (default: every
            column not in ``metadata_columns``).

    Raises:
        InvalidInputError: an unknown ``csv_args`` key or bad dialect value, or an
            unknown encoding (at construction).
        LoaderError: on load, the file is missing, undecodable, malformed, has a
            ragged row, or lacks a named column.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "people.csv"
        >>> _ = path.write_text("name,age\\nAda,36\\n")
        >>> CSVLoader(path, metadata_columns=["age"]).load()[0].page_content
        'name: Ada'
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        source_column: str | None = None,
        metadata_columns: Sequence[str] = (),
        csv_args: Mapping[str, Any] | None = None,
        encoding: str | None = None,
        autodetect_encoding: bool = False,
        *,
        content_columns: Sequence[str] = (),
    ) -> None:
        self.file_path = check_path(file_path)
        self.source_column = source_column
        self.metadata_columns = tuple(metadata_columns)
        self.content_columns = tuple(content_columns)
        self.csv_args = dict(csv_args or {})
        unknown = sorted(set(self.csv_args) - CSV_ARGS)
        if unknown:
            raise InvalidInputError(
                f"unknown csv_args key(s) {', '.join(map(repr, unknown))}; "
                f"valid keys: {', '.join(sorted(CSV_ARGS))}"
            )
        self._fieldnames = self.csv_args.pop("fieldnames", None)
        try:
            csv.reader(io.StringIO(""), **self.csv_args)
        except (TypeError, csv.Error) as err:
            raise InvalidInputError(f"invalid csv_args {self.csv_args!r}: {err}") from None
        self.encoding = check_encoding(encoding)
        self.autodetect_encoding = autodetect_encoding

    def lazy_load(self) -> Iterator[Document]:
        """Yield one Document per data row, reading the file as it goes.

        Raises:
            LoaderError: see the class docstring.
        """
        path = os.fspath(self.file_path)
        with open_text(path, self.encoding, self.autodetect_encoding, newline="") as handle:
            reader = csv.reader(handle, **self.csv_args)
            try:
                header = self._header(reader)
                content = self._content_columns(header)
                for index, row in enumerate(r for r in reader if r):
                    if len(row) != len(header):
                        raise LoaderError(
                            f"ragged row in {path}: row {index} (line {reader.line_num}) has "
                            f"{len(row)} cells, the header has {len(header)}"
                        )
                    yield self._document(dict(zip(header, row, strict=True)), index, content, path)
            except UnicodeDecodeError as err:
                # the encoding open_text chose: autodetection may have picked utf-16
                raise locate_decode_error(path, handle.encoding) from err
            except csv.Error as err:
                raise LoaderError(
                    f"malformed CSV in {path} at line {reader.line_num}: {err}"
                ) from err

    def _header(self, reader: Any) -> list[str]:
        header = list(self._fieldnames) if self._fieldnames else next(reader, None)
        if not header:
            raise LoaderError(f"{os.fspath(self.file_path)} has no header row")
        # one counting pass: header.count per name was quadratic (80,000 columns: 91 s)
        duplicates = sorted(name for name, seen in Counter(header).items() if seen > 1)
        if duplicates:
            raise LoaderError(f"{os.fspath(self.file_path)} repeats column name(s) {duplicates}")
        return header

    def _content_columns(self, header: list[str]) -> list[str]:
        wanted = [*self.metadata_columns, *self.content_columns]
        if self.source_column is not None:
            wanted.append(self.source_column)
        columns = set(header)  # sets: every check below stays linear in the column count
        missing = [name for name in wanted if name not in columns]
        if missing:
            shown = header if len(header) <= 20 else [*header[:20], f"... {len(header)} in all"]
            raise LoaderError(
                f"{os.fspath(self.file_path)} has no column(s) {missing}; its columns are {shown}"
            )
        if self.content_columns:
            chosen = set(self.content_columns)
            return [name for name in header if name in chosen]
        left_out = set(self.metadata_columns)
        return [name for name in header if name not in left_out]

    def _document(
        self, record: dict[str, str], index: int, content: list[str], path: str
    ) -> Document:
        text = "\n".join(f"{name.strip()}: {record[name].strip()}" for name in content)
        source = record[self.source_column] if self.source_column is not None else path
        metadata: dict[str, Any] = {"source": source, "row": index}
        metadata.update((name, record[name]) for name in self.metadata_columns)
        return Document(text, metadata=metadata)

    def __repr__(self) -> str:
        return f"CSVLoader({os.fspath(self.file_path)!r})"
