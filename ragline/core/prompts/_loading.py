"""``save()`` and ``load_prompt``: prompts as JSON or YAML files.

The files of text and few-shot prompts have LangChain's shape (``_type`` ``"prompt"`` /
``"few_shot"``, ``template``, ``input_variables``, ``examples``, ``example_prompt`` ...),
so LangChain's ``load_prompt`` reads ragline's files and ragline reads LangChain's
(``template_path``, ``prefix_path`` / ``suffix_path``, ``example_prompt_path`` and
examples in a separate file included). Chat prompts, which LangChain cannot save, are
written as ``_type: chat`` with one entry per part.

Paths inside a file are read relative to that file's folder; absolute paths, ``..`` and
symlinks that lead out of the folder are refused unless ``allow_dangerous_paths=True``
(the file may come from elsewhere). A file that includes itself, directly or through
others, is refused by name.

Example:
    >>> from ragline.core import PromptTemplate
    >>> prompt = load_prompt_from_config({"_type": "prompt", "template": "Hi {name}"})
    >>> prompt.format(name="Ada")
    'Hi Ada'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragline.core._message_dicts import message_to_dict, messages_from_dict
from ragline.core._optional import require
from ragline.core._paths import check_file_path
from ragline.core.exceptions import InvalidInputError, LoaderError
from ragline.core.messages import BaseMessage

__all__ = ["load_prompt", "load_prompt_from_config", "part_config", "save_prompt"]

_SUFFIXES = (".json", ".yaml", ".yml")
# Keys LangChain writes that carry nothing for ragline while they hold these defaults.
_IGNORED: dict[str, Any] = {
    "name": None,
    "metadata": None,
    "tags": None,
    "output_parser": None,
    "validate_template": False,
    "optional_variables": [],
    "partial_variables": {},
    "example_selector": None,
}


def save_prompt(prompt: Any, path: Path) -> None:
    """Write ``prompt._config()`` as JSON (4-space indent) or YAML, creating the folder.

    Raises:
        InvalidInputError: partial variables, parts that cannot be saved, or a suffix
            other than .json / .yaml / .yml.
        LoaderError: the file cannot be written.
    """
    partials = _given_partials(prompt)
    if partials:
        raise InvalidInputError(
            f"cannot save a prompt with partial variables ({partials}): "
            "they may be functions; save the prompt before calling partial()"
        )
    if path.suffix not in _SUFFIXES:
        raise InvalidInputError(f"a prompt is saved as .json, .yaml or .yml, got {str(path)!r}")
    config = _langchain_layout(prompt, prompt._config())
    if path.suffix == ".json":
        # LangChain's json.dump(indent=4): non-ASCII text as \u escapes
        text = json.dumps(config, indent=4)
    else:
        # LangChain's yaml.dump(default_flow_style=False): keys sorted, non-ASCII escaped
        text = require("yaml", "yaml").safe_dump(config, default_flow_style=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise LoaderError(f"cannot write prompt file {str(path)!r}: {err}") from err


def _given_partials(prompt: Any) -> list[str]:
    """The names of ``prompt``'s partial variables, less the no-messages value a chat
    prompt gives each optional placeholder (the saved messages give it again)."""
    defaults = {
        part.variable_name
        for part in getattr(prompt, "messages", ())
        if getattr(part, "optional", False) and hasattr(part, "variable_name")
    }
    return sorted(
        name
        for name, value in prompt.partial_variables.items()
        if not (name in defaults and isinstance(value, list) and not value)
    )


def _langchain_layout(prompt: Any, config: dict[str, Any]) -> dict[str, Any]:
    """A text prompt's ``config`` with every field LangChain's ``save`` writes, in its
    order (a file a program prints, or diffs against LangChain's, reads the same); other
    prompts, and one with an output parser, keep ragline's shape."""
    if config.get("_type") != "prompt" or prompt.output_parser is not None:
        return config
    return {
        "name": None,  # ragline prompts take no name (LangChain writes its unset name)
        "input_variables": config["input_variables"],
        "optional_variables": list(prompt.optional_variables),
        "output_parser": None,
        "partial_variables": {},
        "metadata": prompt.metadata,
        "tags": prompt.tags,
        "template": config["template"],
        "template_format": config["template_format"],
        "validate_template": bool(prompt.validate_template),
        "_type": "prompt",
    }


def load_prompt(
    path: str | Path, encoding: str | None = None, *, allow_dangerous_paths: bool = False
) -> Any:
    """Read a prompt written by ``save()`` (ragline's or LangChain's) from JSON or YAML.

    Args:
        path: the ``.json``, ``.yaml`` or ``.yml`` file.
        encoding: its encoding (default UTF-8).
        allow_dangerous_paths: let paths inside the file be absolute, contain ``..`` or
            follow symlinks out of its folder.

    Returns:
        A ``PromptTemplate``, ``FewShotPromptTemplate`` or ``ChatPromptTemplate``.

    Raises:
        LoaderError: a file cannot be read; InvalidInputError: it is not a prompt, a path
            inside it leads out of its folder, or it includes itself.

    Example:
        >>> load_prompt("prompts/qa.yaml").input_variables  # doctest: +SKIP
        ['context', 'question']
    """
    return _load_file(Path(check_file_path(path, what="path")), encoding, allow_dangerous_paths, ())


def _load_file(
    file: Path, encoding: str | None, allow_dangerous_paths: bool, chain: tuple[Path, ...]
) -> Any:
    """``load_prompt`` for one file; ``chain`` holds the files that included it."""
    here = file.resolve()
    if here in chain:
        cycle = " -> ".join(repr(str(part)) for part in (*chain[chain.index(here) :], here))
        raise InvalidInputError(
            f"prompt file {str(file)!r} includes itself ({cycle}); point example_prompt_path "
            "at another file"
        )
    config = _read(file, encoding)
    if not isinstance(config, dict):
        raise InvalidInputError(f"prompt file {str(file)!r} does not hold a JSON object")
    loader = _Loader(file.parent, allow_dangerous_paths, encoding, (*chain, here))
    return loader.prompt(config)


def load_prompt_from_config(
    config: Mapping[str, Any], *, allow_dangerous_paths: bool = False
) -> Any:
    """A prompt from the dict ``save()`` writes (paths inside are relative to the current
    folder).

    Raises:
        InvalidInputError: an unknown ``_type`` or key, or a bad value.
    """
    return _Loader(Path("."), allow_dangerous_paths, None).prompt(dict(config))


def part_config(part: Any) -> dict[str, Any]:
    """One part of a chat prompt as its saved entry."""
    if isinstance(part, BaseMessage):
        return {"message": message_to_dict(part)}
    config = getattr(part, "_config", None)
    if config is None:
        raise InvalidInputError(
            f"cannot save a chat prompt holding a {type(part).__name__}; save its parts separately"
        )
    entry: dict[str, Any] = config()
    prompt = getattr(part, "prompt", None)
    if prompt is not None and prompt.template_format != "f-string":
        entry["template_format"] = prompt.template_format
    return entry


def _read(file: Path, encoding: str | None) -> Any:
    if file.suffix not in _SUFFIXES:
        raise InvalidInputError(f"a prompt file is .json, .yaml or .yml, got {str(file)!r}")
    try:
        text = file.read_text(encoding=encoding or "utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise LoaderError(f"cannot read prompt file {str(file)!r}: {err}") from err
    try:
        if file.suffix == ".json":
            return json.loads(text)
        yaml = require("yaml", "yaml")
        return yaml.safe_load(text)
    except ValueError as err:  # json's and yaml's errors are ValueErrors
        raise InvalidInputError(f"prompt file {str(file)!r} is not valid: {err}") from err


class _Loader:
    """Configs to prompts; file references resolved against ``folder``."""

    def __init__(
        self,
        folder: Path,
        allow_dangerous_paths: bool,
        encoding: str | None,
        chain: tuple[Path, ...] = (),
    ) -> None:
        self.folder = folder
        self.allow_dangerous_paths = allow_dangerous_paths
        self.encoding = encoding
        self.chain = chain  # the files being loaded, outermost first (to catch cycles)

    def prompt(self, config: dict[str, Any]) -> Any:
        kind = config.pop("_type", "prompt")  # LangChain's default too
        loaders = {"prompt": self._text, "few_shot": self._few_shot, "chat": self._chat}
        if kind not in loaders:
            raise InvalidInputError(
                f"cannot load a prompt of _type {kind!r}; known types are 'prompt', "
                "'few_shot', 'chat'"
            )
        for key, default in _IGNORED.items():
            if key in config and config[key] in (default, None):
                del config[key]
        return loaders[kind](config)

    def _path(self, value: Any, what: str) -> Path:
        path = Path(check_file_path(str(value), what=what))
        if self.allow_dangerous_paths:
            return self._beside(path, what)
        if path.is_absolute() or ".." in path.parts:
            raise InvalidInputError(
                f"{what} {str(path)!r} is absolute or goes up with '..'; pass "
                "allow_dangerous_paths=True if you trust the prompt file"
            )
        # A symlink inside the folder may point anywhere: where it leads counts.
        folder = self.folder.resolve()
        target = (self.folder / path).resolve()
        if not target.is_relative_to(folder):
            raise InvalidInputError(
                f"{what} {str(path)!r} is a symlink (or goes through one) to {str(target)!r}, "
                f"outside the prompt's folder {str(folder)!r}; pass allow_dangerous_paths=True "
                "if you trust the prompt file"
            )
        return self._beside(path, what)

    def _beside(self, path: Path, what: str) -> Path:
        """``path`` in the prompt file's folder. A relative path missing there but present
        in the current directory is where LangChain, which reads relative to the current
        directory, would find it: a deliberate difference, said instead of a bare miss."""
        found = self.folder / path
        if not path.is_absolute() and not found.exists() and path.is_file():
            raise LoaderError(
                f"{what} {str(path)!r} is not in the prompt file's folder "
                f"{str(self.folder)!r}, where ragline reads it; a file of that name is in "
                "the current directory, where LangChain would read it: move it beside the "
                "prompt file, or name it relative to the prompt file's folder"
            )
        return found

    def _inline(self, config: dict[str, Any], key: str) -> None:
        """Replace ``<key>_path`` (a .txt file) by its text under ``key``."""
        if f"{key}_path" not in config:
            return
        if key in config:
            raise InvalidInputError(f"a prompt config has both {key!r} and {key + '_path'!r}")
        path = self._path(config.pop(f"{key}_path"), f"{key}_path")
        if path.suffix != ".txt":
            raise InvalidInputError(f"{key}_path must name a .txt file, got {str(path)!r}")
        try:
            config[key] = path.read_text(encoding=self.encoding or "utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise LoaderError(f"cannot read template file {str(path)!r}: {err}") from err

    def _text(self, config: dict[str, Any]) -> Any:
        from ragline.core.prompts._base import PromptTemplate

        self._inline(config, "template")
        return _build(
            PromptTemplate,
            config,
            ["template"],
            # validate_template: save() writes it (LangChain's layout), so a file with it
            # true loads back
            ["input_variables", "template_format", "tags", "metadata", "validate_template"],
        )

    def _few_shot(self, config: dict[str, Any]) -> Any:
        from ragline.core.prompts._base import PromptTemplate
        from ragline.core.prompts._few_shot import FewShotPromptTemplate

        self._inline(config, "prefix")
        self._inline(config, "suffix")
        if "example_prompt_path" in config:
            if "example_prompt" in config:
                raise InvalidInputError("a few-shot config has example_prompt and its _path")
            path = self._path(config.pop("example_prompt_path"), "example_prompt_path")
            config["example_prompt"] = _load_file(
                path, self.encoding, self.allow_dangerous_paths, self.chain
            )
        elif isinstance(config.get("example_prompt"), dict):
            config["example_prompt"] = self.prompt(dict(config["example_prompt"]))
        if not isinstance(config.get("example_prompt"), PromptTemplate):
            raise InvalidInputError("a few-shot config needs an example_prompt (a text prompt)")
        if isinstance(config.get("examples"), str):
            config["examples"] = _read(self._path(config["examples"], "examples"), self.encoding)
        return _build(
            FewShotPromptTemplate,
            config,
            ["example_prompt", "suffix", "examples"],
            ["prefix", "example_separator", "input_variables", "template_format"],
        )

    def _chat(self, config: dict[str, Any]) -> Any:
        from ragline.core.prompts._chat import ChatPromptTemplate

        entries = config.pop("messages", None)
        if not isinstance(entries, list):
            raise InvalidInputError("a chat prompt config needs a 'messages' list")
        template_format = config.pop("template_format", "f-string")
        config.pop("input_variables", None)  # derived from the messages
        if config:
            raise InvalidInputError(f"unknown key(s) in a chat prompt config: {sorted(config)}")
        if entries and all(isinstance(e, dict) and "prompt" in e for e in entries):
            # LangChain's shape (its asdict()): only the first template means anything
            return ChatPromptTemplate.from_template(
                entries[0]["prompt"]["template"], template_format=template_format
            )
        parts = [_part(entry, template_format) for entry in entries]
        return ChatPromptTemplate(parts, template_format=template_format)


def _build(cls: type, config: dict[str, Any], required: list[str], optional: list[str]) -> Any:
    missing = [key for key in required if key not in config]
    unknown = sorted(set(config) - set(required) - set(optional))
    if missing or unknown:
        raise InvalidInputError(
            f"cannot load a {cls.__name__}: missing {missing}, unknown {unknown} "
            f"(it takes {required + optional})"
        )
    if cls.__name__ == "PromptTemplate":
        return cls(config.pop("template"), **config)
    return cls(**config)


def _part(entry: Any, template_format: str) -> Any:
    from ragline.core.prompts._chat import (
        _TEMPLATE_ROLES,
        ChatMessagePromptTemplate,
        MessagesPlaceholder,
    )

    if not isinstance(entry, dict):
        raise InvalidInputError(f"a chat prompt entry must be an object, got {entry!r:.80}")
    if "message" in entry:
        [message] = messages_from_dict([entry["message"]])
        return message
    if "placeholder" in entry:
        return MessagesPlaceholder(
            entry["placeholder"],
            optional=bool(entry.get("optional", False)),
            n_messages=entry.get("n_messages"),
        )
    role, text = entry.get("role"), entry.get("template")
    fmt = entry.get("template_format", template_format)
    if not isinstance(text, str) or not (role == "chat" or role in _TEMPLATE_ROLES):
        raise InvalidInputError(f"cannot load the chat prompt entry {entry!r:.80}")
    extras = entry.get("additional_kwargs")
    if extras is not None and not isinstance(extras, dict):
        raise InvalidInputError(f"additional_kwargs must be an object, got {extras!r:.80}")
    if role == "chat":
        return ChatMessagePromptTemplate.from_template(
            text,
            role=str(entry.get("chat_role") or ""),
            template_format=fmt,
            additional_kwargs=extras,
        )
    return _TEMPLATE_ROLES[role].from_template(text, template_format=fmt, additional_kwargs=extras)
