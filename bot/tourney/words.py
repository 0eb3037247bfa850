"""The grammar of ``tourney ...`` (the rest of the words after the command).

>>> parse_tourney(["new", "seats=4", "pace=turbo", "payout=65/35", "levels=hands:3"], usage=str).options
{'seats': 4, 'pace': 'turbo', 'payout': '65/35', 'levels': 'hands:3'}
>>> parse_tourney([], usage=str).args
('status',)
>>> parse_tourney(["new", "buyin=\u0663"], usage=lambda tr: "tourney new buyin=N")  # ASCII digits only
Traceback (most recent call last):
bot.text.grammar.UsageError: '\u0663' is not a whole number; usage: tourney new buyin=N
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from bot.text.grammar import Command, UsageError
from bot.tourney.schedule import MAX_BUYIN, MAX_SEATS, MAX_STACK, MIN_SEATS, MIN_STACK, PACES, PAYOUTS

SUBCOMMANDS: Final = ("status", "new", "register", "unregister", "start", "cancel", "levels", "results")
NUMBERS: Final = {"seats": (MIN_SEATS, MAX_SEATS), "stack": (MIN_STACK, MAX_STACK), "buyin": (0, MAX_BUYIN)}
WORDS: Final = {"pace": tuple(PACES), "payout": tuple(PAYOUTS)}
ALIASES: Final = {"buy-in": "buyin", "buy_in": "buyin", "players": "seats", "level": "levels", "pay": "payout",
                  "payouts": "payout"}
_LEVELS = re.compile(r"^(hands|minutes):([0-9]{1,3})$")
_NUMBER = re.compile(r"[-+]?[0-9]+")
"""A whole number as every command reads one (bot/text/grammar.py): ASCII digits only, so that what
'tourney new' takes, 'join' takes too ('buyin=٣' is not a number here either)."""
MAX_LENGTH = 120


def parse_tourney(rest: Sequence[str], *, usage: Callable[[Any], str]) -> Command:
    """``tourney`` (the state), ``tourney SUB`` or ``tourney new key=value ...``."""
    if not rest:
        return Command(name="tourney", args=("status",))
    sub = rest[0].lower()
    if sub not in SUBCOMMANDS:
        raise UsageError("usage.cannot_read", word=repr(rest[0]), usage=usage)
    if sub != "new":
        if len(rest) > 1:
            raise UsageError("usage.no_arguments", name=f"tourney {sub}", usage=usage)
        return Command(name="tourney", args=(sub,))
    options: dict[str, int | str] = {}
    for word in rest[1:]:
        key, eq, value = word.partition("=")
        key = ALIASES.get(key.lower(), key.lower())
        if not eq or (key not in NUMBERS and key not in WORDS and key != "levels"):
            raise UsageError("usage.cannot_read", word=repr(word), usage=usage)
        if key in NUMBERS:
            low, high = NUMBERS[key]
            if not _NUMBER.fullmatch(value):
                raise UsageError("usage.not_number", text=repr(value), usage=usage)
            if len(value.lstrip("+-0")) > 9 or not low <= int(value) <= high:
                raise UsageError("tourney.usage_range", key=key, low=low, high=high, value=repr(value), usage=usage)
            options[key] = int(value)
        elif key in WORDS:
            if value.lower() not in WORDS[key]:
                raise UsageError("usage.choices", key=key, choices=" | ".join(WORDS[key]), value=repr(value),
                                 usage=usage)
            options[key] = value.lower()
        else:
            m = _LEVELS.match(value.lower())
            if m is None or not 1 <= int(m.group(2)) <= MAX_LENGTH:
                raise UsageError("tourney.usage_levels", value=repr(value), high=MAX_LENGTH, usage=usage)
            options[key] = value.lower()
    return Command(name="tourney", args=("new",), options=options)
