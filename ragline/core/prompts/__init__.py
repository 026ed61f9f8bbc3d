"""Prompt templates: turn a dict of variables into a prompt for a model.

A prompt is a Runnable: ``invoke({"question": ...})`` returns a ``PromptValue`` that a
chat model reads as messages and a completion model reads as text. Templates use Python
f-string syntax (``"Answer {question}"``; ``{{`` and ``}}`` are literal braces),
jinja2 (``template_format="jinja2"``, rendered in jinja2's sandbox) or mustache
(``template_format="mustache"``: ``{{name}}`` HTML-escaped, ``{{{name}}}`` as given,
sections); their variables are found in the template.

Modules: ``_values.py`` (prompt values), ``_formats.py`` (the template formats),
``_base.py`` (``BasePromptTemplate``, ``PromptTemplate``, ``format_document``),
``_chat.py`` (``ChatPromptTemplate``, message templates and ``BaseChatPromptTemplate``,
the base of a program's own chat prompt), ``_few_shot.py`` (few-shot
prompts), ``_string.py`` (``StringPromptTemplate``, the base of a program's own prompt),
``_loading.py`` (``save`` / ``load_prompt``), ``_limits.py`` (``TemplateLimits``:
how much work formatting one prompt may do), ``_jinja.py`` (the bounded jinja2 sandbox)
and ``_mustache.py`` (the mustache format).

Example:
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "You answer in {language}."), ("human", "{question}")])
    >>> prompt.input_variables
    ['language', 'question']
"""

from ragline.core.prompts._base import (
    BasePromptTemplate,
    FormatOutputType,
    PromptTemplate,
    format_document,
)
from ragline.core.prompts._chat import (
    AIMessagePromptTemplate,
    BaseChatPromptTemplate,
    BaseMessagePromptTemplate,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    ImagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)
from ragline.core.prompts._few_shot import (
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    FewShotPromptWithTemplates,
)
from ragline.core.prompts._formats import get_template_variables
from ragline.core.prompts._limits import TemplateLimits, get_template_limits, set_template_limits
from ragline.core.prompts._loading import load_prompt, load_prompt_from_config
from ragline.core.prompts._string import StringPromptTemplate
from ragline.core.prompts._values import (
    ChatPromptValue,
    ImagePromptValue,
    PromptValue,
    StringPromptValue,
)

__all__ = [
    "AIMessagePromptTemplate",
    "BaseChatPromptTemplate",
    "BaseMessagePromptTemplate",
    "BasePromptTemplate",
    "ChatMessagePromptTemplate",
    "ChatPromptTemplate",
    "ChatPromptValue",
    "FewShotChatMessagePromptTemplate",
    "FewShotPromptTemplate",
    "FewShotPromptWithTemplates",
    "FormatOutputType",
    "HumanMessagePromptTemplate",
    "ImagePromptTemplate",
    "ImagePromptValue",
    "MessagesPlaceholder",
    "PromptTemplate",
    "PromptValue",
    "StringPromptTemplate",
    "StringPromptValue",
    "SystemMessagePromptTemplate",
    "TemplateLimits",
    "format_document",
    "get_template_limits",
    "get_template_variables",
    "load_prompt",
    "load_prompt_from_config",
    "set_template_limits",
]
