"""Display names that are shown as their owners meant them and cannot disturb anyone else's text.

A name is text its owner chose, put into lines and boards everybody reads. Two
things in it can reach beyond it:

- bidirectional controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069
  isolates, U+200E/U+200F/U+061C marks) and right-to-left letters, which reorder
  the text *after* the name ("ann folds" read backwards to the end of the line);
- characters whose width on screen is not one column (zero-width characters,
  combining marks, wide letters and emoji), which throw a monospace board's
  columns out of line.

:func:`display_name` keeps what the owner typed (their letters, emoji, even an
override that reverses their own name) but closes what they opened and drops
closers they did not open, then wraps a name that holds right-to-left text or
controls in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE: whatever the name
does, it does inside itself. Invisible characters with no use in a name
(zero-width space, word joiner, BOM, other format controls) are dropped.
:func:`width` and :func:`pad` measure and pad text by columns on screen.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

FSI: Final = "\u2068"
PDI: Final = "\u2069"
PDF: Final = "\u202c"
OPENERS: Final = {"\u202a": PDF, "\u202b": PDF, "\u202d": PDF, "\u202e": PDF,  # LRE RLE LRO RLO
                  "\u2066": PDI, "\u2067": PDI, FSI: PDI}  # LRI RLI FSI
CLOSERS: Final = frozenset({PDF, PDI})
MARKS: Final = frozenset({"\u200e", "\u200f", "\u061c"})  # LRM RLM ALM: direction for their neighbours
JOINERS: Final = frozenset({"\u200c", "\u200d"})  # ZWNJ, ZWJ: they shape scripts and emoji sequences
BIDI_CONTROLS: Final = frozenset(OPENERS) | CLOSERS | MARKS
_RTL: Final = frozenset({"R", "AL", "AN"})
MAX_LENGTH: Final = 24


def _kept(ch: str) -> bool:
    """Whether a character may stay in a name: no control characters, no invisible format
    characters but the bidi controls (balanced later) and the joiners."""
    category = unicodedata.category(ch)
    if category == "Cc":
        return False
    if category == "Cf":
        return ch in BIDI_CONTROLS or ch in JOINERS
    return True


def _balanced(text: str) -> str:
    """Drop closers nobody opened (a PDI would end *our* isolate early); close what stays open.

    >>> _balanced("\\u202eevil") == "\\u202eevil\\u202c", _balanced("a\\u2069b\\u202c") == "ab"
    (True, True)
    """
    out: list[str] = []
    stack: list[str] = []
    for ch in text:
        if ch in OPENERS:
            stack.append(OPENERS[ch])
        elif ch in CLOSERS:
            if ch not in stack:
                continue  # closes nothing of the name's own
            while stack and stack[-1] != ch:  # a PDI also closes the embeddings opened inside its isolate
                out.append(stack.pop())
            stack.pop()
        out.append(ch)
    out.extend(reversed(stack))
    return "".join(out)


def needs_isolation(text: str) -> bool:
    """Text that could reorder what follows it: right-to-left letters or bidi controls."""
    return any(ch in BIDI_CONTROLS or unicodedata.bidirectional(ch) in _RTL for ch in text)


def display_name(raw: str, *, limit: int = MAX_LENGTH) -> str:
    """The name to show: the owner's characters, whitespace collapsed, at most ``limit`` of them,
    contained (isolated) if it holds right-to-left text or controls.

    >>> display_name("  Ann \\n Lee ")
    'Ann Lee'
    >>> display_name("\\u202eevil") == FSI + "\\u202eevil\\u202c" + PDI
    True
    >>> display_name("Bob\\u200b\\ufeff"), display_name("\\u2069\\u2069") == ""
    ('Bob', True)
    >>> display_name("דוד") == FSI + "דוד" + PDI
    True
    """
    text = "".join(ch for ch in raw if _kept(ch) or ch.isspace())
    text = " ".join(text.split())[:limit]
    text = _balanced(text).strip()
    if not any(not unicodedata.category(ch).startswith(("C", "Z", "M")) for ch in text):
        return ""  # nothing visible is left
    return f"{FSI}{text}{PDI}" if needs_isolation(text) else text


def unique_name(raw: str, *, taken: Iterable[str]) -> str:
    """The name shown for a newcomer (:func:`display_name`, 'player' if nothing visible is left),
    unlike each of ``taken`` (the names already shown beside it) without controls or case:
    two players named 'Alex' are shown as 'Alex' and 'Alex2'.

    >>> unique_name("Alex", taken=["alex"]), unique_name("Alex\\u200b", taken=["Alex", "Alex2"])
    ('Alex2', 'Alex3')
    >>> unique_name("", taken=[]), unique_name("\\u2069\\n", taken=["player"])
    ('player', 'player2')
    """
    base = display_name(raw) or "player"
    names = {plain(name).lower() for name in taken}
    candidate, n = base, 2
    while plain(candidate).lower() in names:
        candidate, n = f"{base}{n}", n + 1
    return candidate


def plain(name: str) -> str:
    """A name without its controls, for comparing what people type ('kick Dave') with what is shown.

    >>> plain(display_name("\\u202eDave")) == "Dave"
    True
    """
    return "".join(ch for ch in name if unicodedata.category(ch) != "Cf" or ch in JOINERS).strip()


def _char_width(ch: str, previous: str) -> int:
    if previous == "\u200d":
        return 0  # the next part of an emoji sequence (👩‍💻): drawn into the one before
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if "\U0001f3fb" <= ch <= "\U0001f3ff":
        return 0  # a skin tone modifies the emoji before it
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


@lru_cache(maxsize=4096)
def width(text: str) -> int:
    """Columns the text takes in a monospace font: wide letters and emoji 2, marks and controls 0
    (remembered: every board measures its players' names).

    >>> width("Ann"), width("李小龙"), width("😀x"), width("e\\u0301"), width("☀\\ufe0f")
    (3, 6, 3, 1, 2)
    >>> width(display_name("\\u202eab"))
    2
    """
    total, previous, last = 0, "", 0
    for ch in text:
        if ch == "\ufe0f" and last == 1:
            total += 1  # emoji presentation (☀️): as wide as any emoji
            last = 2
            continue
        last = _char_width(ch, previous)
        total += last
        previous = ch
    return total


def pad(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` columns on screen (what ``f"{text:<n}"`` does by characters)."""
    return text + " " * max(0, columns - width(text))
