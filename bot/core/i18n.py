"""Message catalogs: every word the bot says, in English, Russian and Polish.

The catalogs are gettext PO files, ``bot/locales/<language>/<part>.po`` (one
part per area: ``core``, ``hands``, ``images``, ``adapters``), read with Babel
and compiled in memory at first use; plural forms come from each catalog's
``Plural-Forms`` header, evaluated by the standard library's :mod:`gettext`.
Message ids are keys (``"board.pot"``), not English sentences, so that the
English text can change without touching the other catalogs; ``{fields}`` are
filled with :meth:`str.format`.

>>> ru = translator("ru")
>>> ru.n("chips", 1), ru.n("chips", 2), ru.n("chips", 5), ru.n("chips", 21)
('1 фишка', '2 фишки', '5 фишек', '21 фишка')
>>> pl = translator("pl")
>>> pl.n("chips", 1), pl.n("chips", 2), pl.n("chips", 5), pl.n("chips", 22)
('1 żeton', '2 żetony', '5 żetonów', '22 żetony')
>>> translator("en").n("chips", 1), translator("en").n("chips", 7)
('1 chip', '7 chips')
>>> language_of("ru-RU"), language_of("pl"), language_of("en_GB"), language_of("de"), language_of(None)
('ru', 'pl', 'en', None, None)

Keys built at run time (one per street, rank, command...) are declared with
:func:`family`, so that a test can tell a key nobody uses from one that is
only built dynamically.
"""

from __future__ import annotations

import gettext
import io
import logging
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

log = logging.getLogger(__name__)

LANGUAGES: Final = ("en", "ru", "pl")
DEFAULT_LANGUAGE: Final = "en"
LANGUAGE_NAMES: Final = {"en": "English", "ru": "Русский", "pl": "Polski"}
"""Each language's name in itself (for ``lang`` and ``config lang=``)."""
LOCALES: Final = Path(__file__).parents[1] / "locales"

_DYNAMIC: set[str] = set()


def family(prefix: str, names: Iterable[object]) -> dict[str, str]:
    """Keys ``prefix.name`` built at run time, declared (for the catalog test) and returned.

    >>> family("street", [3, 4])
    {'3': 'street.3', '4': 'street.4'}
    """
    keys = {str(name): f"{prefix}.{name}" for name in names}
    _DYNAMIC.update(keys.values())
    return keys


def dynamic_keys() -> frozenset[str]:
    """Every key declared with :func:`family` by the modules imported so far."""
    return frozenset(_DYNAMIC)


def language_of(tag: str | None) -> str | None:
    """One of :data:`LANGUAGES` for a locale tag (``'ru'``, ``'pl-PL'``, ``'en_US'``), else None."""
    if not tag or not isinstance(tag, str):
        return None
    base = tag.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


class Translator:
    """The messages of one language: ``tr("key", field=value)``, ``tr.n("key", count)``.

    A key missing from this language falls back to English, then to the key itself
    (the catalog test keeps that from happening).
    """

    __slots__ = ("_catalog", "_texts", "lang")

    def __init__(self, *, lang: str, catalog: gettext.NullTranslations) -> None:
        self.lang = lang
        self._catalog = catalog
        self._texts: dict[str, str] = {}
        """key -> its text, as the catalog (with its fallbacks) gave it: a dozen lookups an action."""

    def __repr__(self) -> str:
        return f"translator({self.lang!r})"

    def __call__(self, key: str, /, **fields: object) -> str:
        """The message ``key`` with its fields; a field may be a function of the translator,
        for a part that needs words of the language (``chips=lambda tr: tr.n("chips", 5)``)."""
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._catalog.gettext(key)
        if not fields:
            return text
        for value in fields.values():
            if callable(value):  # rare: a part in the reader's words; resolve every such field once
                return text.format_map({k: v(self) if callable(v) else v for k, v in fields.items()})
        return text.format_map(fields)  # the common case: plain values, no copy of the fields

    def n(self, key: str, count: int, /, **fields: object) -> str:
        """The plural form of ``key`` for ``count`` (given to the text as ``{n}``)."""
        return self._catalog.ngettext(key, key, count).format(n=count, **fields)


def read_catalog(lang: str) -> Catalog:
    """Every part of one language's catalog as one Babel catalog (a key in two parts is an error)."""
    merged: Catalog | None = None
    for path in sorted((LOCALES / lang).glob("*.po")):
        with path.open("rb") as f:
            part = read_po(f, locale=lang)
        if merged is None:
            merged = part
            continue
        for message in part:
            if message.id and message.id in merged:
                raise ValueError(f"{path}: key {message.id!r} is already in another part of {lang!r}")
            if message.id:
                merged[message.id] = message
    if merged is None:
        raise FileNotFoundError(f"no catalog for {lang!r} in {LOCALES}")
    return merged


@cache
def _compiled(lang: str) -> gettext.GNUTranslations:
    buf = io.BytesIO()
    write_mo(buf, read_catalog(lang))
    buf.seek(0)
    return gettext.GNUTranslations(buf)


@lru_cache(maxsize=256)
def translator(lang: str | None = None) -> Translator:
    """The :class:`Translator` of ``lang`` (a language of :data:`LANGUAGES`, else English); a tag
    seen before costs one lookup (every board and line of a table asks for its language)."""
    return _translator(language_of(lang) or DEFAULT_LANGUAGE)


@cache
def _translator(code: str) -> Translator:
    catalog = _compiled(code)
    if code != DEFAULT_LANGUAGE:
        catalog.add_fallback(_compiled(DEFAULT_LANGUAGE))
    return Translator(lang=code, catalog=catalog)


EN: Final = translator(DEFAULT_LANGUAGE)
"""English, the default."""
