"""Telegram's slash commands: the menu registered with setMyCommands, and a command's grammar text.

``/stud <command ...>`` takes every command of the grammar; the short forms (``/join``,
``/fold``, ``/call`` ...; ``/join@botname`` too) are registered with setMyCommands, one
list per language (English is the default list; Russian and Polish users get their own).
"""

from __future__ import annotations

import logging
from typing import Final

from telegram import Bot as TgBot
from telegram import BotCommand
from telegram.error import TelegramError

from adapters.telegram.codec import clip
from bot.core.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator, translator
from bot.text.grammar import ALIASES, USAGE, usage_text

log = logging.getLogger(__name__)

OWNER_COMMANDS: Final = frozenset({"config", "kick", "stop", "start", "tourney", "addbot", "pause", "resume", "sitout",
                                   "approve", "deny", "settle"})
"""Commands that may need the sender's admin rights ('start' and 'tourney start' of a sit-and-go too)."""
SHORT_COMMANDS: Final = ("new", "join", "leave", "sitout", "back", "start", "stop", "pause", "resume", "config",
                         "kick", "cards", "board", "top", "stats", "history", "hand", "export", "replay", "seed",
                         "verify", "rules", "help", "lang", "addbot", "tourney", "rebuy", "approve", "deny", "ledger",
                         "settle", "paid", "fold", "check", "call", "bet", "raise", "complete", "bringin")
TOURNEY_COMMANDS: Final = ("register", "unregister")
"""Sit-and-go shorthands: /register is 'tourney register'."""
MAX_DESCRIPTION: Final = 256


async def register_commands(tg: TgBot) -> None:
    """The command menu in every language (a failure is logged: the commands work without it)."""
    for lang in LANGUAGES:  # English is the default list; Russian and Polish users get their own
        code = None if lang == DEFAULT_LANGUAGE else lang
        try:
            await tg.set_my_commands(command_list(translator(lang)), language_code=code)
        except TelegramError as exc:
            log.warning("setMyCommands (%s) failed: %s", lang, exc)


def command_list(tr: Translator) -> list[BotCommand]:
    """The commands Telegram suggests, described in ``tr``'s language (the names stay: Latin only)."""
    commands = [BotCommand("stud", clip(tr("adapters.stud_command"), MAX_DESCRIPTION))]
    commands += [BotCommand(c, clip(usage_text(tr, ALIASES.get(c, c)), MAX_DESCRIPTION)) for c in SHORT_COMMANDS]
    commands += [BotCommand("register", clip(tr("usage.register"), MAX_DESCRIPTION)),
                 BotCommand("unregister", clip(tr("usage.unregister"), MAX_DESCRIPTION))]
    return commands


def split_command(text: str, username: str | None) -> tuple[str, str] | None:
    """('join', '200') of '/join@studbot 200'; None for a command addressed to another bot.

    >>> split_command("/Join@StudBot 200", "studbot"), split_command("/join@other", "studbot")
    (('join', '200'), None)
    """
    if not text.startswith("/"):
        return None
    head, _, rest = text.strip().partition(" ")
    name, _, target = head[1:].partition("@")
    if target and (username is None or target.lower() != username.lower()):
        return None
    return name.lower(), rest.strip()


def grammar_text(name: str, rest: str) -> str | None:
    """The grammar's text of a slash command, or None for a command that is not ours.

    >>> grammar_text("stud", "join 200"), grammar_text("fold", ""), grammar_text("weather", "")
    ('join 200', 'fold', None)
    """
    if name in ("stud", "poker"):
        return rest or "help"
    canon = ALIASES.get(name, name)
    if canon not in USAGE and name not in TOURNEY_COMMANDS:
        return None
    return f"{name} {rest}".strip()
