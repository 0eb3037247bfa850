"""The message catalogs: complete in every language, no key unused, fields and plural forms right.

A key is *used* when the code names it: the first argument of a call to a translator
(``tr("key")``, ``tr.n("key", n)``), of a message (``Refusal("key")``, ``UsageError("key")``,
``UserError("key")``) or of a public line (``self._say(rt, "key")``), both branches of a
conditional there included; or when a module declares it with :func:`bot.core.i18n.family`.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import string
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.pofile import read_po

import adapters
import bot
from bot.core.i18n import LANGUAGES, LOCALES, dynamic_keys, read_catalog, translator
from bot.text.grammar import COMMANDS, LOCAL_NAMES, command_word, parse

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "adapters").rglob("*.py")])
KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_-]+)*$")
KEY_ARGUMENT = {"tr": 0, "Refusal": 0, "UsageError": 0, "UserError": 0, "_named": 1}
"""Calls that take a key, and which argument it is."""
OUTPUT_KEY_ARGUMENT = {"say": 1}
"""Methods of a table's output (``self.output.say(rt, "key")``) that take a key, and which argument it is."""
KEY_KEYWORDS = {"taken"}
"""Keyword arguments that carry a key (``tables.open(..., taken="refuse.table_exists")``)."""
RANK_FIELDS = {f + s for f in ("one", "many", "of", "to", "on") for s in ("", "2")}


def _ends_in_output(node: ast.AST) -> bool:
    """``output``, ``<anything>.output`` or ``self`` (inside it): the table's output, whose ``say`` takes a key."""
    return (isinstance(node, ast.Name) and node.id in ("output", "self")) or \
        (isinstance(node, ast.Attribute) and node.attr == "output")


def _strings(node: ast.AST) -> set[str]:
    """String constants a key argument may take: a literal, or either branch of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    return set()


def keys_in_code() -> dict[str, set[str]]:
    """Every key the code names -> the files that name it."""
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if isinstance(func, ast.Attribute) and func.attr == "n" and isinstance(func.value, ast.Name) \
                    and func.value.id == "tr":
                args = node.args[:1]  # tr.n("key", count)
            elif isinstance(func, ast.Call):
                args = node.args[:1]  # self._tr(msg)("key"), translator(lang)("key")
            elif name in KEY_ARGUMENT:
                args = node.args[KEY_ARGUMENT[name]:KEY_ARGUMENT[name] + 1]
            elif name in OUTPUT_KEY_ARGUMENT and isinstance(func, ast.Attribute) and _ends_in_output(func.value):
                args = node.args[OUTPUT_KEY_ARGUMENT[name]:OUTPUT_KEY_ARGUMENT[name] + 1]
            else:
                args = []
            args = [*args, *(k.value for k in node.keywords if k.arg in KEY_KEYWORDS)]
            if not args:
                continue
            for arg in args:
                for key in _strings(arg):
                    found.setdefault(key, set()).add(str(path.relative_to(ROOT)))
    return found


def _import_all() -> None:
    """Import every module of bot/ and adapters/, so that every family() is declared."""
    for package in (bot, adapters):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)


def catalog(lang: str) -> dict[str, tuple[str, ...]]:
    """key -> its text(s) (one, or one per plural form)."""
    out = {}
    for message in read_catalog(lang):
        if message.id:
            key = message.id if isinstance(message.id, str) else message.id[0]
            out[key] = (message.string,) if isinstance(message.string, str) else tuple(message.string)
    return out


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_the_code_names_keys_that_look_like_keys() -> None:
    used = keys_in_code()
    assert len(used) > 150
    assert not {k for k in used if not KEY.match(k)}, "a translator called with something that is not a key"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_key_is_missing_from_a_catalog(lang: str) -> None:
    _import_all()
    texts = catalog(lang)
    used = set(keys_in_code()) | dynamic_keys()
    missing = sorted(used - set(texts))
    assert not missing, f"{lang}: keys used in code but not in bot/locales/{lang}/*.po: {missing}"
    empty = sorted(k for k in used if not all(texts[k]))
    assert not empty, f"{lang}: keys with an empty text: {empty}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_catalog_has_a_key_nobody_uses(lang: str) -> None:
    _import_all()
    unused = sorted(set(catalog(lang)) - set(keys_in_code()) - dynamic_keys())
    assert not unused, f"{lang}: keys nobody uses: {unused}"


@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_translations_use_only_the_fields_the_code_gives(lang: str) -> None:
    english, texts = catalog("en"), catalog(lang)
    for key, forms in texts.items():
        given = set().union(*(fields(t) for t in english[key])) | {"n"}
        if key.startswith(("hand.", "partial.")):
            given |= RANK_FIELDS
        for text in forms:
            assert fields(text) <= given, f"{lang} {key}: {text!r} uses fields the code does not give"


def test_catalogs_are_real_po_files_with_the_language_and_its_plural_rule() -> None:
    for lang in LANGUAGES:
        for path in sorted((LOCALES / lang).glob("*.po")):
            with path.open("rb") as f:
                cat = read_po(f)
            assert str(cat.locale) == lang, path
            assert cat.num_plurals == (2 if lang == "en" else 3), path


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_agree_with_cldr(lang: str) -> None:
    """The Plural-Forms header picks the form CLDR says, for every count up to 1000."""
    categories = {"en": ["one", "other"], "ru": ["one", "few", "many"], "pl": ["one", "few", "many"]}[lang]
    tr = translator(lang)
    forms = catalog(lang)["chips"]
    for n in range(1001):
        want = forms[categories.index(Locale.parse(lang).plural_form(n))].format(n=n)
        assert tr.n("chips", n) == want, (lang, n)


@pytest.mark.parametrize("n,ru,pl", [
    (1, "1 фишка", "1 żeton"), (2, "2 фишки", "2 żetony"), (4, "4 фишки", "4 żetony"), (5, "5 фишек", "5 żetonów"),
    (11, "11 фишек", "11 żetonów"), (12, "12 фишек", "12 żetonów"), (21, "21 фишка", "21 żetonów"),
    (22, "22 фишки", "22 żetony"), (25, "25 фишек", "25 żetonów"), (101, "101 фишка", "101 żetonów"),
    (112, "112 фишек", "112 żetonów"), (1000, "1000 фишек", "1000 żetonów"),
])
def test_chips_in_russian_and_polish(n: int, ru: str, pl: str) -> None:
    assert translator("ru").n("chips", n) == ru
    assert translator("pl").n("chips", n) == pl


def test_command_words_are_one_command_each_and_valid_discord_names() -> None:
    for lang in LANGUAGES:
        words = [command_word(translator(lang), c) for c in COMMANDS]
        assert len(set(words)) == len(words), lang
        for word in words:
            assert re.fullmatch(r"[-_\w]{1,32}", word) and word == word.lower(), (lang, word)
    assert all(LOCAL_NAMES[command_word(translator(lang), c)] == c for lang in LANGUAGES for c in COMMANDS)
    assert parse("пас").name == "fold" and parse("sprawdzam").name == "call" and parse("/stud сесть 200").args == (200,)


def test_an_unknown_language_falls_back_to_english() -> None:
    assert translator("de") is translator("en") and translator(None).lang == "en"


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_every_usage_line_fits_a_telegram_command_description(lang: str) -> None:
    """Telegram's command menu takes 256 characters a description, and the menu is each command's usage line:
    one grown past it (the sit-and-go's, when it learnt game=) would be cut short in the menu."""
    from adapters.telegram.commands import MAX_DESCRIPTION
    from bot.core.i18n import translator
    from bot.text.grammar import COMMANDS, usage_text

    tr = translator(lang)
    assert {c: len(usage_text(tr, c)) for c in COMMANDS if len(usage_text(tr, c)) > MAX_DESCRIPTION} == {}
