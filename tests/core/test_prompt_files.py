"""``save()`` and ``load_prompt``: JSON and YAML files in LangChain's shapes, read by
LangChain's ``load_prompt`` and written by it; chat prompts; paths inside files."""

from __future__ import annotations

import json
import warnings

import pytest

from ragline.core import (
    AIMessage,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    FewShotPromptTemplate,
    HumanMessage,
    HumanMessagePromptTemplate,
    InvalidInputError,
    LengthBasedExampleSelector,
    LoaderError,
    MessagesPlaceholder,
    PromptTemplate,
    load_prompt,
    load_prompt_from_config,
)

EXAMPLES = [{"q": "1+1", "a": "2"}, {"q": "2+2", "a": "4"}]
EXAMPLE_PROMPT = PromptTemplate.from_template("Q: {q}\nA: {a}")


def few_shot() -> FewShotPromptTemplate:
    return FewShotPromptTemplate(
        examples=EXAMPLES, example_prompt=EXAMPLE_PROMPT, prefix="Math:", suffix="Q: {input}\nA:"
    )


def langchain_load(path):
    from langchain_core.prompts import load_prompt as lc_load_prompt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain deprecates its own load_prompt
        return lc_load_prompt(path)


def test_a_text_prompt_round_trips_through_json_and_yaml(tmp_path):
    prompt = PromptTemplate.from_template("Tell {x} about {y}")
    prompt.save(tmp_path / "p.json")
    # LangChain's file: every field in its order (json.dump indent=4)
    assert list(json.loads((tmp_path / "p.json").read_text()).items()) == [
        ("name", None),
        ("input_variables", ["x", "y"]),
        ("optional_variables", []),
        ("output_parser", None),
        ("partial_variables", {}),
        ("metadata", None),
        ("tags", None),
        ("template", "Tell {x} about {y}"),
        ("template_format", "f-string"),
        ("validate_template", False),
        ("_type", "prompt"),
    ]
    prompt.save(tmp_path / "deeper" / "p.yaml")
    # LangChain's yaml.dump: keys sorted
    assert (tmp_path / "deeper" / "p.yaml").read_text() == (
        "_type: prompt\ninput_variables:\n- x\n- y\nmetadata: null\nname: null\n"
        "optional_variables: []\noutput_parser: null\npartial_variables: {}\ntags: null\n"
        "template: Tell {x} about {y}\ntemplate_format: f-string\nvalidate_template: false\n"
    )
    for name in ("p.json", "deeper/p.yaml"):
        loaded = load_prompt(tmp_path / name)
        assert isinstance(loaded, PromptTemplate)
        assert loaded.format(x=1, y=2) == "Tell 1 about 2"


def test_a_prompt_saved_with_validate_template_tags_and_metadata_loads_back(tmp_path):
    # save() writes validate_template (LangChain's layout); load_prompt refused its own
    # file when the flag was true (an unknown key), as it did a LangChain file with it
    prompt = PromptTemplate(
        "Q: {q} \u00e9",
        input_variables=["q"],
        validate_template=True,
        tags=["t"],
        metadata={"k": 1},
    )
    for name in ("v.json", "v.yaml"):
        prompt.save(tmp_path / name)
        loaded = load_prompt(tmp_path / name)
        assert loaded.validate_template is True
        assert (loaded.tags, loaded.metadata) == (["t"], {"k": 1})
        assert repr(loaded) == repr(prompt)


def test_langchain_reads_our_files_and_we_read_its_files(tmp_path):
    from langchain_core.prompts import FewShotPromptTemplate as LCFewShot
    from langchain_core.prompts import PromptTemplate as LCPrompt

    few_shot().save(tmp_path / "ours.json")
    assert langchain_load(tmp_path / "ours.json").format(input="3+3") == (
        few_shot().format(input="3+3")
    )
    theirs = LCFewShot(
        examples=EXAMPLES,
        example_prompt=LCPrompt.from_template("Q: {q}\nA: {a}"),
        prefix="Math:",
        suffix="Q: {input}\nA:",
        input_variables=["input"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.save(tmp_path / "theirs.yaml")
        LCPrompt.from_template("Hi {name}").save(tmp_path / "text.json")
    loaded = load_prompt(tmp_path / "theirs.yaml")
    assert loaded.format(input="3+3") == ("Math:\n\nQ: 1+1\nA: 2\n\nQ: 2+2\nA: 4\n\nQ: 3+3\nA:")
    assert load_prompt(tmp_path / "text.json").format(name="Ada") == "Hi Ada"


def test_templates_and_examples_in_files_beside_the_prompt(tmp_path):
    (tmp_path / "suffix.txt").write_text("Q: {input}\nA:")
    (tmp_path / "examples.yaml").write_text("- q: 1+1\n  a: '2'\n- q: 2+2\n  a: '4'\n")
    EXAMPLE_PROMPT.save(tmp_path / "example.json")
    config = {
        "_type": "few_shot",
        "prefix": "Math:",
        "suffix_path": "suffix.txt",
        "examples": "examples.yaml",
        "example_prompt_path": "example.json",
        "input_variables": ["input"],
    }
    (tmp_path / "few.json").write_text(json.dumps(config))
    assert load_prompt(tmp_path / "few.json").format(input="3+3") == few_shot().format(input="3+3")


def test_a_path_found_only_in_the_current_directory_is_explained(tmp_path, monkeypatch):
    # LangChain reads template_path relative to the current directory, ragline relative to
    # the prompt file's folder (a listed difference): the miss says so, not just "cannot read"
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "t.txt").write_text("Hi {name}")
    (tmp_path / "prompts" / "p.json").write_text(json.dumps({"template_path": "prompts/t.txt"}))
    monkeypatch.chdir(tmp_path)
    assert langchain_load("prompts/p.json").format(name="Ada") == "Hi Ada"
    for dangerous in (False, True):
        with pytest.raises(LoaderError) as caught:
            load_prompt("prompts/p.json", allow_dangerous_paths=dangerous)
        assert str(caught.value) == (
            "template_path 'prompts/t.txt' is not in the prompt file's folder 'prompts', where "
            "ragline reads it; a file of that name is in the current directory, where LangChain "
            "would read it: move it beside the prompt file, or name it relative to the prompt "
            "file's folder"
        )
    # named relative to the prompt file's folder, it loads; from a config, the current
    # directory is the folder
    (tmp_path / "prompts" / "p.json").write_text(json.dumps({"template_path": "t.txt"}))
    assert load_prompt("prompts/p.json").format(name="Ada") == "Hi Ada"
    config = {"template_path": "prompts/t.txt"}
    assert load_prompt_from_config(config).format(name="Ada") == "Hi Ada"


def test_paths_that_leave_the_folder_are_refused(tmp_path):
    (tmp_path / "inner").mkdir()
    (tmp_path / "secret.txt").write_text("{x}")
    (tmp_path / "inner" / "p.json").write_text(json.dumps({"template_path": "../secret.txt"}))
    with pytest.raises(InvalidInputError, match=r"goes up with '\.\.'; pass allow_dangerous"):
        load_prompt(tmp_path / "inner" / "p.json")
    loaded = load_prompt(tmp_path / "inner" / "p.json", allow_dangerous_paths=True)
    assert loaded.format(x="ok") == "ok"
    absolute = {"template_path": str(tmp_path / "secret.txt")}
    with pytest.raises(InvalidInputError, match="is absolute"):
        load_prompt_from_config(absolute)


def test_symlinks_that_lead_out_of_the_folder_are_refused(tmp_path):
    (tmp_path / "inner").mkdir()
    (tmp_path / "secret.txt").write_text("secret {x}")
    (tmp_path / "inner" / "local.txt").write_text("local {x}")
    (tmp_path / "inner" / "out.txt").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "inner" / "in.txt").symlink_to(tmp_path / "inner" / "local.txt")
    (tmp_path / "inner" / "up").symlink_to(tmp_path, target_is_directory=True)
    prompt_file = tmp_path / "inner" / "p.json"
    for name in ("out.txt", "up/secret.txt"):
        prompt_file.write_text(json.dumps({"template_path": name}))
        message = rf"template_path '{name}' is a symlink .* to '{tmp_path / 'secret.txt'}', outside"
        with pytest.raises(InvalidInputError, match=message):
            load_prompt(prompt_file)
        assert load_prompt(prompt_file, allow_dangerous_paths=True).format(x=1) == "secret 1"
    prompt_file.write_text(json.dumps({"template_path": "in.txt"}))  # stays inside: fine
    assert load_prompt(prompt_file).format(x=1) == "local 1"
    few = {
        "_type": "few_shot",
        "suffix": "{q}",
        "examples": "up/e.json",
        "example_prompt": {"template": "{q}"},
    }
    (tmp_path / "e.json").write_text("[]")
    prompt_file.write_text(json.dumps(few))
    with pytest.raises(InvalidInputError, match=r"examples 'up/e\.json' is a symlink"):
        load_prompt(prompt_file)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a\x00b.json", r"contains a NUL character \(position \d+\)"),
        ("a" * 1_000_000 + ".json", r"is too long for the file system"),
        ("\ud800.json", r"holds '\\ud800', which the file system cannot encode"),
    ],
)
def test_a_prompt_path_no_file_system_can_hold_is_refused_by_name(tmp_path, name, message):
    with pytest.raises(InvalidInputError, match=r"^path '.*' " + message):
        load_prompt(tmp_path / name)
    (tmp_path / "p.json").write_text(json.dumps({"template_path": name.replace(".json", ".txt")}))
    with pytest.raises(InvalidInputError, match=r"^template_path '.*' " + message):
        load_prompt(tmp_path / "p.json")


def test_a_prompt_file_that_includes_itself_is_named(tmp_path):
    def few_shot_file(name, example):
        config = {"_type": "few_shot", "suffix": "{q}", "examples": [], "input_variables": ["q"]}
        (tmp_path / name).write_text(json.dumps({**config, "example_prompt_path": example}))

    few_shot_file("self.json", "self.json")
    with pytest.raises(InvalidInputError, match=r"prompt file '.*self\.json' includes itself"):
        load_prompt(tmp_path / "self.json")
    few_shot_file("a.json", "b.json")
    few_shot_file("b.json", "a.json")
    cycle = rf"'{tmp_path / 'a.json'}' -> '{tmp_path / 'b.json'}' -> '{tmp_path / 'a.json'}'"
    with pytest.raises(InvalidInputError, match=r"includes itself \(" + cycle):
        load_prompt(tmp_path / "a.json", allow_dangerous_paths=True)


def test_chat_prompts_round_trip(tmp_path):
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You answer in {language}."),
            MessagesPlaceholder("history", optional=True, n_messages=4),
            ChatMessagePromptTemplate.from_template("Be {tone}.", role="critic"),
            AIMessage("Ready."),
            ("human", "{question}"),
        ]
    )
    for name in ("chat.json", "chat.yaml"):
        prompt.save(tmp_path / name)
        loaded = load_prompt(tmp_path / name)
        values = {"language": "French", "tone": "kind", "question": "Why?",
                  "history": [("human", "hi")]}  # fmt: skip
        assert loaded.format_messages(**values) == prompt.format_messages(**values)
        assert loaded.input_variables == ["language", "question", "tone"]
    jinja = ChatPromptTemplate.from_messages([("human", "{{ q }}")], template_format="jinja2")
    jinja.save(tmp_path / "jinja.json")
    assert load_prompt(tmp_path / "jinja.json").format_messages(q="x") == [HumanMessage("x")]


def test_a_message_templates_additional_kwargs_are_saved_and_loaded_back(tmp_path):
    prompt = ChatPromptTemplate(
        [
            HumanMessagePromptTemplate.from_template("{q}", additional_kwargs={"name": "bob"}),
            ChatMessagePromptTemplate.from_template(
                "Be {tone}.", role="critic", additional_kwargs={"ids": [1, 2]}
            ),
        ]
    )
    prompt.save(tmp_path / "chat.json")
    loaded = load_prompt(tmp_path / "chat.json")
    assert [m.additional_kwargs for m in loaded.format_messages(q="hi", tone="kind")] == [
        {"name": "bob"},
        {"ids": [1, 2]},
    ]
    assert repr(loaded) == repr(prompt)
    entry = {
        "_type": "chat",
        "messages": [{"role": "human", "template": "x", "additional_kwargs": 3}],
    }
    with pytest.raises(InvalidInputError, match="additional_kwargs must be an object, got 3"):
        load_prompt_from_config(entry)


def test_what_cannot_be_saved_is_refused_before_writing(tmp_path):
    with pytest.raises(InvalidInputError, match="partial variables"):
        PromptTemplate.from_template("{a}{b}").partial(a="1").save(tmp_path / "p.json")
    selector = LengthBasedExampleSelector(examples=EXAMPLES, example_prompt=EXAMPLE_PROMPT)
    with pytest.raises(InvalidInputError, match="with an example selector"):
        FewShotPromptTemplate(
            example_selector=selector, example_prompt=EXAMPLE_PROMPT, suffix="{q}"
        ).save(tmp_path / "f.json")
    with pytest.raises(InvalidInputError, match=r"\.json, \.yaml or \.yml"):
        PromptTemplate.from_template("x").save(tmp_path / "p.txt")
    assert list(tmp_path.iterdir()) == []


def test_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(LoaderError, match=r"missing\.json"):
        load_prompt(tmp_path / "missing.json")
    (tmp_path / "kind.json").write_text(json.dumps({"_type": "agent"}))
    with pytest.raises(InvalidInputError, match="_type 'agent'"):
        load_prompt(tmp_path / "kind.json")
    (tmp_path / "extra.json").write_text(json.dumps({"template": "x", "color": "red"}))
    with pytest.raises(InvalidInputError, match=r"unknown \['color'\]"):
        load_prompt(tmp_path / "extra.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InvalidInputError, match="is not valid"):
        load_prompt(tmp_path / "broken.json")


def test_langchains_chat_config_shape_loads_its_first_template():
    loaded = load_prompt_from_config(
        {
            "_type": "chat",
            "input_variables": ["q"],
            "messages": [{"prompt": {"template": "Answer: {q}", "input_variables": ["q"]}}],
        }
    )
    assert loaded.format_messages(q="x") == [HumanMessage("Answer: x")]
