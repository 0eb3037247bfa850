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
>>> parse("jion")
Traceback (most recent call last):
...
bot.commands.UsageError: unknown command 'jion'. Try: help
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final


class UsageError(ValueError):
    """Malformed input: answered with usage text, changes nothing."""


ACTIONS: Final = ("fold", "check", "call", "bet", "raise", "complete", "bring-in")
ALIASES: Final = {"bringin": "bring-in", "bring_in": "bring-in", "c": "call", "k": "check", "f": "fold",
                  "r": "raise", "b": "bet", "sit-out": "sitout", "sit": "back", "?": "help", "mycards": "cards",
                  "history": "history", "leaderboard": "top"}
CONFIG_KEYS: Final = {
    "ante": "ante", "bring_in": "bring_in", "bringin": "bring_in", "bring-in": "bring_in",
    "small": "small", "small_bet": "small", "big": "big", "big_bet": "big", "timer": "timer", "view": "view",
}
WORD_KEYS: Final = {"view": ("image", "text")}
"""Config keys whose values are words, and the words they take."""

USAGE: Final = {
    "new": "new: start a table in this channel (stakes ante 1, bring-in 2, bets 5/10)",
    "join": "join [buy-in]: take a seat, buying in from your wallet",
    "leave": "leave: fold if you are in a hand, cash out when it ends",
    "sitout": "sitout: skip the next hands, keeping your seat",
    "back": "back: play again after sitting out",
    "start": "start: deal the first hand (then hands follow by themselves)",
    "stop": "stop: close the table; every stack goes back to its wallet (creator or admin)",
    "config": ("config ante=1 bring_in=2 small=5 big=10 timer=60 view=image|text: change the table "
               "(creator or admin)"),
    "kick": "kick NAME: remove a player from the table (creator or admin)",
    "cards": "cards: send me my cards privately again",
    "board": "board: show the table again",
    "top": "top: the leaderboard of this community",
    "history": "history [N]: the last hands played here",
    "rules": "rules: how Seven Card Stud Hi-Lo is played",
    "help": "help [command]: the commands",
    "addbot": "addbot [name]: seat a house bot",
    "fold": "fold: give up the hand (only facing a bet)",
    "check": "check: pass when there is nothing to call",
    "call": "call: match the bet",
    "bet": "bet: bet the street's limit",
    "raise": "raise: raise by the street's limit",
    "complete": "complete: raise the bring-in (or a short all-in) to a full bet",
    "bring-in": "bring-in: post the bring-in",
}
COMMANDS: Final = tuple(USAGE)

_TURN = re.compile(r"^@(\d+\.\d+)$")
_NAME = re.compile(r"^[^\s=]{1,32}$")


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
        raise UsageError("empty command. Try: help")
    words = text.strip().split()
    if not words:
        raise UsageError("empty command. Try: help")
    head = words[0].lstrip("/!").lower()
    if "@" in head:  # Telegram's /join@studbot
        head = head.split("@", 1)[0]
    if head in ("stud", "poker") and len(words) > 1:
        words = words[1:]
        head = words[0].lstrip("/!").lower()
    name = ALIASES.get(head, head)
    if name not in USAGE:
        raise UsageError(f"unknown command {words[0]!r}. Try: help")
    rest = words[1:]
    turn = None
    if rest and (m := _TURN.match(rest[-1])):
        turn = m.group(1)
        rest = rest[:-1]
    usage = f"usage: {USAGE[name]}"
    if name in ACTIONS or name in ("new", "leave", "sitout", "back", "start", "stop", "cards", "board", "top",
                                   "rules"):
        if rest:
            raise UsageError(f"{name} takes no arguments; {usage}")
        return Command(name=name, turn=turn)
    if name == "join":
        if len(rest) > 1:
            raise UsageError(usage)
        if rest:
            return Command(name=name, args=(_positive_int(rest[0], usage),))
        return Command(name=name)
    if name == "history":
        if len(rest) > 1:
            raise UsageError(usage)
        count = _positive_int(rest[0], usage) if rest else 5
        return Command(name=name, args=(min(count, 20),))
    if name == "kick":  # the rest of the line: display names may hold spaces
        if not rest:
            raise UsageError(usage)
        return Command(name=name, args=(" ".join(rest),))
    if name == "addbot":
        if len(rest) > 1 or (rest and not _NAME.match(rest[0])):
            raise UsageError(usage)
        return Command(name=name, args=tuple(rest))
    if name == "help":
        if len(rest) > 1:
            raise UsageError(usage)
        return Command(name=name, args=tuple(ALIASES.get(w.lower(), w.lower()) for w in rest))
    assert name == "config"
    if not rest:
        raise UsageError(usage)
    options: dict[str, int | str] = {}
    for word in rest:
        key, eq, value = word.partition("=")
        canon = CONFIG_KEYS.get(key.lower())
        if not eq or canon is None:
            raise UsageError(f"cannot read {word!r}; {usage}")
        if canon in WORD_KEYS:
            choices = WORD_KEYS[canon]
            if value.lower() not in choices:
                raise UsageError(f"{canon} is {' or '.join(choices)}, not {value!r}; {usage}")
            options[canon] = value.lower()
        else:
            options[canon] = _int(value, usage)
    return Command(name=name, options=options)


def _int(text: str, usage: str) -> int:
    if not re.fullmatch(r"-?\d{1,9}", text):
        raise UsageError(f"{text!r} is not a whole number; {usage}")
    return int(text)


def _positive_int(text: str, usage: str) -> int:
    value = _int(text, usage)
    if value <= 0:
        raise UsageError(f"{text!r} must be above 0; {usage}")
    return value


def help_text(topic: str | None = None) -> str:
    """All commands, or one command's usage."""
    if topic:
        if topic not in USAGE:
            raise UsageError(f"no command {topic!r}. Try: help")
        return USAGE[topic]
    table = ", ".join(c for c in COMMANDS if c not in ACTIONS)
    return f"Commands: {table}. Actions: {', '.join(ACTIONS)}. 'help COMMAND' for details."


RULES_TEXT: Final = (
    "Seven Card Stud Hi-Lo, eight or better. Everyone antes; you get two cards down and one up. "
    "The lowest up card (aces high; clubs, diamonds, hearts, spades) posts the bring-in or completes. "
    "Fixed limits: small bets on third and fourth street, big bets from fifth; a bet and three raises "
    "per round. From fourth street the best showing hand acts first. Fourth to sixth street come face up, "
    "seventh face down. At the showdown the best high hand takes half of each pot and the best low "
    "(five different ranks 8 or lower, ace low) the other half; no qualifying low, the high takes it all."
)
