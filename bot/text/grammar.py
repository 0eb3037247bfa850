"""The platform-neutral command grammar: the same words on every platform.

>>> parse("join 200")
Command(name='join', args=(200,), options={}, turn=None)
>>> parse("/Raise")
Command(name='raise', args=(), options={}, turn=None)
>>> parse("config ante=1 big=10 timer=30").options
{'ante': 1, 'big': 10, 'timer': 30}
>>> parse("config view=text").options
{'view': 'text'}
>>> parse("call @12.7").turn
'12.7'
>>> parse("пас").name, parse("lang pl").args, parse("config lang=ru").options
('fold', ('pl',), {'lang': 'ru'})
>>> parse("rebuy 50").args, parse("approve Bob Smith").args, parse("deny #3").args, parse("sitout bob").args
((50,), ('Bob Smith',), ('#3',), ('bob',))
>>> parse("sitout").args, parse("config approve=on").options
((), {'approve': 'on'})
>>> parse("jion")
Traceback (most recent call last):
...
bot.core.errors.UsageError: unknown command 'jion'. Try: help
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from bot.core.errors import UsageError
from bot.core.i18n import EN, LANGUAGE_NAMES, LANGUAGES, Translator, family, translator
from bot.core.limits import (
    MAX_BUYIN,
    MAX_EXPORT,
    MAX_HISTORY,
    MAX_LEVEL_LENGTH,
    MAX_REPLAY,
    MAX_SEATS,
    MAX_STACK,
    MIN_SEATS,
    MIN_STACK,
    PACES,
    PAYOUTS,
    PERIODS,
    REVEALS,
    VIEWS,
)
from bot.core.model import MIX, MIX_HANDS_RANGE, TABLE_GAMES
from engine import PlayerSeedError, check_player_seed


def _either(words: tuple[str, ...]) -> Callable[[Translator], str]:
    return lambda tr: tr("list.or", head=", ".join(words[:-1]), last=words[-1])


def _with_usage(name: str) -> Callable[[Translator], str]:
    return lambda tr: usage_text(tr, name)


ACTIONS: Final = ("fold", "check", "call", "bet", "raise", "complete", "bring-in")
BIG_ACTIONS: Final = ("bet-big", "raise-big")
"""G5's double bet: what its buttons send ('bet-big @12.7'), read as 'bet big' and 'raise big'."""
TURN_ACTIONS: Final = ACTIONS + BIG_ACTIONS
"""Every action a button or Discord's '/stud act' may send with a turn."""
SIZED: Final = ("bet", "raise")
"""The actions that may name their size: 'bet 10', 'raise 15' (the total), 'bet big' (G5)."""
BIG_WORDS: Final = frozenset({"big", "double", "большой", "большую", "большая", "двойной", "двойную", "duży", "duża",
                              "duzy", "duza", "podwójny", "podwojny"})
"""'big' as players type it after 'bet' or 'raise', in the three languages."""
ALIASES: Final = {"bringin": "bring-in", "bring_in": "bring-in", "c": "call", "k": "check", "f": "fold",
                  "r": "raise", "b": "bet", "sit-out": "sitout", "sit": "back", "?": "help", "mycards": "cards",
                  "history": "history", "leaderboard": "top"}
CONFIG_KEYS: Final = {
    "ante": "ante", "bring_in": "bring_in", "bringin": "bring_in", "bring-in": "bring_in",
    "small": "small", "small_bet": "small", "big": "big", "big_bet": "big", "timer": "timer", "view": "view",
    "lang": "lang", "language": "lang", "reveal": "reveal", "approve": "approve",
    "timebank": "timebank", "time_bank": "timebank", "timebank_refill": "timebank_refill",
    "time_bank_refill": "timebank_refill", "chip_value": "chip_value", "chipvalue": "chip_value",
    "currency": "currency", "game": "game", "mix_hands": "mix_hands", "mixhands": "mix_hands",
    "mix-hands": "mix_hands",
}
WORD_KEYS: Final = {"view": VIEWS, "reveal": REVEALS, "approve": ("on", "off"), "game": TABLE_GAMES}
"""Config keys whose values are words, and the words they take."""

COMMANDS: Final = ("new", "join", "leave", "sitout", "back", "start", "stop", "pause", "resume", "config", "kick",
                   "cards", "board", "top", "stats", "history", "hand", "export", "replay", "seed", "verify", "rules",
                   "help", "lang", "addbot", "tourney", "rebuy", "approve", "deny", "ledger", "settle", "paid", "fold",
                   "check", "call", "bet", "raise", "complete", "bring-in")
"""Every command, in the order help lists them."""
_USAGE = family("usage", COMMANDS)
_WORD = family("cmd", COMMANDS)


def usage_text(tr: Translator, name: str) -> str:
    """One command's usage line in ``tr``'s language: 'join [buy-in]: take a seat, ...'."""
    return tr(_USAGE[name])


def command_word(tr: Translator, name: str) -> str:
    """The command's name in ``tr``'s language (what it is called there; typing it works too).

    >>> command_word(translator("ru"), "fold"), command_word(translator("en"), "fold")
    ('пас', 'fold')
    """
    return tr(_WORD[name])


USAGE: Final = {name: usage_text(EN, name) for name in COMMANDS}
"""Every command's usage line in English."""
_USAGE_OF: Final = {name: _with_usage(name) for name in COMMANDS}
"""Every command's usage line as a function of the translator (made once, not at every command)."""
LOCAL_NAMES: Final = {command_word(translator(lang), name).lower(): name for lang in LANGUAGES for name in COMMANDS}
"""A command's name in any language -> the command ('пас' -> 'fold')."""



_TURN = re.compile(r"^@(\d+\.\d+)$")
_CHIP_VALUE = re.compile(r"^(?:off|[0-9]{1,9}(?:[.,][0-9]{1,6})?)$")
"""``config chip_value=``: a decimal (a point or a comma), 'off' or 0 to show chips alone."""
_CURRENCY = re.compile(r"^[^\s=]{1,8}$")
_NAME = re.compile(r"^[^\s=]{1,32}$")
_WHOLE = re.compile(r"[-+]?[0-9]+")
"""A whole number as every command reads one: ASCII digits only, so that what 'tourney new' takes,
'join' takes too ('buyin=\u0663' is not a number anywhere)."""


@dataclass(frozen=True, slots=True)
class Command:
    """One parsed command: its name, positional arguments, key=value options and turn token."""

    name: str
    args: tuple[int | str, ...] = ()
    options: dict[str, int | str] = field(default_factory=dict)
    turn: str | None = None
    """``'hand.decision'`` the command answers (buttons carry it), or None."""

    @property
    def is_action(self) -> bool:
        return self.name in ACTIONS


def parse(text: str) -> Command:
    """Parse one line of user input; :class:`UsageError` with usage text if malformed."""
    if not isinstance(text, str):
        raise UsageError("usage.empty")
    words = text.strip().split()
    if not words:
        raise UsageError("usage.empty")
    head = words[0].lstrip("/!").lower()
    if "@" in head:  # Telegram's /join@studbot
        head = head.split("@", 1)[0]
    if head in ("stud", "poker") and len(words) > 1:
        words = words[1:]
        head = words[0].lstrip("/!").lower()
    if head in ("register", "unregister"):  # short for 'tourney register' (Telegram's /register)
        if len(words) > 1:
            raise UsageError("usage.no_arguments", name=head, usage=_with_usage("tourney"))
        return Command(name="tourney", args=(head,))
    if head in BIG_ACTIONS:  # a double bet's button: 'bet-big @12.7' is 'bet big @12.7'
        head, words = head.removesuffix("-big"), [head.removesuffix("-big"), "big", *words[1:]]
    name = ALIASES.get(head) or LOCAL_NAMES.get(head, head)
    if name not in USAGE:
        raise UsageError("usage.unknown", word=repr(words[0]))
    rest = words[1:]
    turn = None
    if rest and (m := _TURN.match(rest[-1])):
        turn = m.group(1)
        rest = rest[:-1]
    usage = _USAGE_OF[name]
    if name == "tourney":  # sit-and-go tournaments
        return _tourney_command(rest, usage)
    if name in SIZED and rest:
        return _sized(name, rest, turn, usage)
    if name in ACTIONS or name in ("new", "leave", "back", "start", "stop", "cards", "board", "rules", "pause",
                                   "resume", "settle"):
        if rest:
            raise UsageError("usage.no_arguments", name=name, usage=usage)
        return Command(name=name, turn=turn)
    if name == "lang":
        if len(rest) > 1 or (rest and language_word(rest[0]) is None):
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=(language_word(rest[0]) or "",) if rest else ())
    if name in ("join", "rebuy"):
        if len(rest) > 1:
            raise UsageError("usage.only", usage=usage)
        if rest:
            return Command(name=name, args=(_positive_int(rest[0], usage),))
        return Command(name=name)
    if name == "history":
        if len(rest) > 1:
            raise UsageError("usage.only", usage=usage)
        count = _positive_int(rest[0], usage) if rest else 5
        return Command(name=name, args=(min(count, MAX_HISTORY),))
    if name in ("hand", "export", "replay"):
        return _hand_command(name, rest, usage)
    if name == "seed":  # the rest of the line as typed: a seed may hold spaces, and '@1.2' is part of it
        lead = len(text.split()) - len(words) + 1  # 'seed', or 'stud seed'
        typed = text.strip().split(None, lead)
        if len(typed) <= lead:
            return Command(name=name)
        raw = typed[lead]
        try:
            return Command(name=name, args=(check_player_seed(raw),))
        except PlayerSeedError:
            raise UsageError("fair.usage_bad_seed", usage=usage) from None
    if name == "verify":
        if len(rest) != 1:
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=(_positive_int(rest[0].lstrip("#"), usage),))
    if name == "top":  # 'top', 'top net', 'top net week'
        if rest and (rest[0].lower() != "net" or len(rest) > 2 or (len(rest) == 2 and rest[1].lower() not in PERIODS)):
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=("net", rest[1].lower() if len(rest) == 2 else "all") if rest else ())
    if name == "stats":  # 'stats', 'stats Bob Smith': the rest of the line is a name (never a control character
        # nor half a surrogate pair: names drop them, and the databases refuse a NUL or a lone surrogate in a query)
        if len(" ".join(rest)) > 64 or any(unicodedata.category(ch) in ("Cc", "Cs") for word in rest for ch in word):
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=(" ".join(rest),) if rest else ())
    if name in ("kick", "approve", "deny"):  # the rest of the line: display names may hold spaces
        if not rest:
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=(" ".join(rest),))
    if name == "sitout":  # 'sitout' for oneself; 'sitout NAME' (the host) for another
        return Command(name=name, args=(" ".join(rest),) if rest else (), turn=turn)
    if name == "addbot":
        if len(rest) > 1 or (rest and not _NAME.match(rest[0])):
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=tuple(rest))
    if name == "ledger":  # 'ledger', 'ledger csv'
        if len(rest) > 1 or (rest and rest[0].lower() != "csv"):
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=("csv",) if rest else ())
    if name == "paid":  # 'paid PAYER PAYEE' (names may hold spaces), or a settle-up's button 'paid @12.3'
        if turn is not None and not rest:
            return Command(name=name, turn=turn)
        if len(rest) < 2 or turn is not None:
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=(" ".join(rest),))
    if name == "help":
        if len(rest) > 1:
            raise UsageError("usage.only", usage=usage)
        return Command(name=name, args=tuple(_command_name(w) for w in rest))
    assert name == "config"
    if not rest:
        raise UsageError("usage.only", usage=usage)
    options: dict[str, int | str] = {}
    for word in rest:
        key, eq, value = word.partition("=")
        canon = CONFIG_KEYS.get(key.lower())
        if not eq or canon is None:
            raise UsageError("usage.cannot_read", word=repr(word), usage=usage)
        if canon == "lang":
            lang = language_word(value)
            if lang is None:
                raise UsageError("usage.choices", key=canon, choices=_either(LANGUAGES), value=repr(value),
                                 usage=usage)
            options[canon] = lang
        elif canon == "chip_value":
            if not _CHIP_VALUE.match(value.lower()):
                raise UsageError("session.usage_chip_value", value=repr(value), usage=usage)
            options[canon] = value.lower().replace(",", ".")
        elif canon == "currency":
            if not _CURRENCY.match(value):
                raise UsageError("session.usage_currency", value=repr(value), usage=usage)
            options[canon] = value
        elif canon in WORD_KEYS:
            choices = WORD_KEYS[canon]
            if value.lower() not in choices:
                raise UsageError("usage.choices", key=canon, choices=_either(choices), value=repr(value),
                                 usage=usage)
            options[canon] = value.lower()
        elif canon == "timebank_refill":  # 'S/H': S seconds every H hands
            if not _REFILL.fullmatch(value):
                raise UsageError("timebank.usage_refill", value=repr(value), usage=usage)
            options[canon] = value
        elif canon == "mix_hands":
            low, high = MIX_HANDS_RANGE
            if not _WHOLE.fullmatch(value) or not low <= _int(value, usage) <= high:
                raise UsageError("usage.mix_hands", value=repr(value), low=low, high=high, usage=usage)
            options[canon] = _int(value, usage)
        else:
            options[canon] = _int(value, usage)
    return Command(name=name, options=options)


def _sized(name: str, rest: Sequence[str], turn: str | None, usage: Callable[[Translator], str]) -> Command:
    """'bet 10', 'raise 15' (to a total), 'bet big' / 'raise big' (G5's double bet): the size is the
    only argument, ``'big'`` or a whole number (the table picks the legal action of that size).

    >>> parse("bet big").args, parse("raise-big @3.4"), parse("bet 10").args, parse("бет большую").args
    (('big',), Command(name='raise', args=('big',), options={}, turn='3.4'), (10,), ('big',))
    """
    if len(rest) != 1:
        raise UsageError("usage.only", usage=usage)
    if rest[0].lower() in BIG_WORDS:
        return Command(name=name, args=("big",), turn=turn)
    return Command(name=name, args=(_positive_int(rest[0], usage),), turn=turn)


_REFILL = re.compile(r"[0-9]{1,4}/[0-9]{1,4}")
"""``config timebank_refill=S/H`` (its ranges are checked by the table: bot/table/commands.py)."""


HUGE: Final = 10 ** 30
"""Whole numbers of more than 30 digits read as this (past every limit, and past Python's
limit on converting very long digit strings): each is refused for what it is, too much."""


def _hand_command(name: str, rest: list[str], usage: Callable[[Translator], str]) -> Command:
    """'hand [N]' (the last hand without N); 'export [N | last N] [all]', N of last in 1..MAX_EXPORT;
    'replay [N | last N]', N of last in 1..MAX_REPLAY.

    An export without a number is of the asker's own hands; ``all`` takes every hand.

    >>> parse("hand 12").args, parse("export").args, parse("export last 5").options
    ((12,), (), {'last': 5})
    >>> parse("export last 5 all").options, parse("export all").options
    ({'last': 5, 'all': 1}, {'all': 1})
    >>> parse("replay 7").args, parse("replay last 3").options
    ((7,), {'last': 3})
    """
    options: dict[str, int | str] = {}
    if name == "export" and rest and rest[-1].lower() == "all":
        options["all"] = 1
        rest = rest[:-1]
    if name in ("export", "replay") and rest and rest[0].lower() == "last":
        if len(rest) != 2:
            raise UsageError("usage.only", usage=usage)
        count = _positive_int(rest[1], usage)
        if name == "export" and count > MAX_EXPORT:
            raise UsageError("usage.export_max", most=MAX_EXPORT, usage=usage)
        if name == "replay" and count > MAX_REPLAY:
            raise UsageError("usage.replay_max", most=MAX_REPLAY, usage=usage)
        last: dict[str, int | str] = {"last": count}
        return Command(name=name, options=last | options)
    if len(rest) > 1 or (rest and options):
        raise UsageError("usage.only", usage=usage)
    return Command(name=name, args=(_positive_int(rest[0], usage),) if rest else (), options=options)


TOURNEY_SUBCOMMANDS: Final = ("status", "new", "register", "unregister", "start", "cancel", "levels", "results")
"""What ``tourney`` is followed by (``tourney`` alone is ``tourney status``)."""
_TOURNEY_NUMBERS: Final = {"seats": (MIN_SEATS, MAX_SEATS), "stack": (MIN_STACK, MAX_STACK),
                           "buyin": (0, MAX_BUYIN)}
_TOURNEY_WORDS: Final = {"pace": tuple(PACES), "payout": tuple(PAYOUTS), "game": TABLE_GAMES}
_TOURNEY_ALIASES: Final = {"buy-in": "buyin", "buy_in": "buyin", "players": "seats", "level": "levels",
                           "pay": "payout", "payouts": "payout"}
_LEVELS = re.compile(r"^(hands|minutes):([0-9]{1,3})$")


def _tourney_command(rest: Sequence[str], usage: Callable[[Translator], str]) -> Command:
    """``tourney`` (the state), ``tourney SUB`` or ``tourney new key=value ...``.

    >>> _tourney_command(["new", "seats=4", "pace=turbo", "payout=65/35", "levels=hands:3"], str).options
    {'seats': 4, 'pace': 'turbo', 'payout': '65/35', 'levels': 'hands:3'}
    >>> _tourney_command([], str).args, parse("register").args
    (('status',), ('register',))
    >>> _tourney_command(["new", "buyin=\u0663"], lambda tr: "tourney new buyin=N")  # ASCII digits only
    Traceback (most recent call last):
    bot.core.errors.UsageError: '\u0663' is not a whole number; usage: tourney new buyin=N
    """
    if not rest:
        return Command(name="tourney", args=("status",))
    sub = rest[0].lower()
    if sub not in TOURNEY_SUBCOMMANDS:
        raise UsageError("usage.cannot_read", word=repr(rest[0]), usage=usage)
    if sub != "new":
        if len(rest) > 1:
            raise UsageError("usage.no_arguments", name=f"tourney {sub}", usage=usage)
        return Command(name="tourney", args=(sub,))
    options: dict[str, int | str] = {}
    for word in rest[1:]:
        key, eq, value = word.partition("=")
        key = _TOURNEY_ALIASES.get(key.lower(), key.lower())
        if not eq or (key not in _TOURNEY_NUMBERS and key not in _TOURNEY_WORDS and key != "levels"):
            raise UsageError("usage.cannot_read", word=repr(word), usage=usage)
        if key in _TOURNEY_NUMBERS:
            low, high = _TOURNEY_NUMBERS[key]
            if not _WHOLE.fullmatch(value):
                raise UsageError("usage.not_number", text=repr(value), usage=usage)
            if len(value.lstrip("+-0")) > 9 or not low <= int(value) <= high:
                raise UsageError("tourney.usage_range", key=key, low=low, high=high, value=repr(value), usage=usage)
            options[key] = int(value)
        elif key in _TOURNEY_WORDS:
            if value.lower() not in _TOURNEY_WORDS[key]:
                raise UsageError("usage.choices", key=key, choices=" | ".join(_TOURNEY_WORDS[key]), value=repr(value),
                                 usage=usage)
            options[key] = value.lower()
        else:
            m = _LEVELS.match(value.lower())
            if m is None or not 1 <= int(m.group(2)) <= MAX_LEVEL_LENGTH:
                raise UsageError("tourney.usage_levels", value=repr(value), high=MAX_LEVEL_LENGTH, usage=usage)
            options[key] = value.lower()
    return Command(name="tourney", args=("new",), options=options)


def _int(text: str, usage: Callable[[Translator], str]) -> int:
    """A whole number of any length ('1000000000', '-3', '0007').

    >>> _int("99999999999999999999", _with_usage("join")), _int("-1" + "0" * 40, _with_usage("join")) == -HUGE
    (99999999999999999999, True)
    """
    if not _WHOLE.fullmatch(text):
        raise UsageError("usage.not_number", text=repr(text), usage=usage)
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * HUGE if len(digits) > 30 else sign * int(digits)


def _positive_int(text: str, usage: Callable[[Translator], str]) -> int:
    value = _int(text, usage)
    if value <= 0:
        raise UsageError("usage.not_positive", text=repr(text), usage=usage)
    return value


def _command_name(word: str) -> str:
    """The command a word names as typed ('/Fold', 'c', 'пас': 'fold'), else the word in lower case."""
    lowered = word.lstrip("/!").lower()
    return ALIASES.get(lowered) or LOCAL_NAMES.get(lowered, lowered)


def language_word(word: str) -> str | None:
    """'ru', 'RU', 'русский', 'polski', 'english' -> the language code, else None."""
    lowered = word.strip().lower()
    if lowered in LANGUAGES:
        return lowered
    return next((code for code, name in LANGUAGE_NAMES.items() if name.lower() == lowered), None)


def help_text(topic: str | None = None, tr: Translator = EN) -> str:
    """All commands, or one command's usage, in ``tr``'s language."""
    if topic:
        if topic not in USAGE:
            raise UsageError("usage.no_command", topic=repr(topic))
        return usage_text(tr, topic)
    table = ", ".join(c for c in COMMANDS if c not in ACTIONS)
    return tr("help.all", commands=table, actions=", ".join(ACTIONS))


_RULES: Final = family("rules", TABLE_GAMES)


def rules_text(tr: Translator = EN, game: str = "stud8") -> str:
    """How ``game`` (one of :data:`~bot.core.model.TABLE_GAMES`) is played, in ``tr``'s language; the mix
    explains its rotation, then each of its games.

    >>> rules_text(EN, "razz").split(".")[0]
    'Razz: Seven Card Stud for the lowest hand'
    >>> rules_text(EN, "mix").count("\\n\\n")
    3
    """
    if game == MIX:
        return "\n\n".join([tr(_RULES[MIX]), *(tr(_RULES[g]) for g in ("razz", "stud", "stud8"))])
    return tr(_RULES[game])


RULES_TEXT: Final = rules_text(EN)
