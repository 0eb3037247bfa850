"""The ``/stud`` command group: one subcommand per command of the grammar, typed options.

Each subcommand only builds the grammar's command string (``join 200``,
``config ante=1 timer=30``, ``kick Bob``) and hands it to the adapter.

The tree is written in English; :class:`CatalogTranslator` (set on the tree, so
discord.py puts its answers in the synced payload) gives Discord the names and
descriptions in Russian and Polish: subcommand names from the core's command
words, their descriptions from the core's usage text, the group's and the
options' from ``bot/locales/*/adapters.po``. Discord still sends the English
names in interactions, whatever the user's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from functools import cache
from typing import TYPE_CHECKING, Any, Final, cast

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.commands import COMMANDS, USAGE, WORD_KEYS, command_word, usage_text
from bot.i18n import DEFAULT_LANGUAGE, EN, LANGUAGE_NAMES, LANGUAGES, Translator, family, language_of, translator
from bot.stats.book import PERIODS

from .render import command_text

if TYPE_CHECKING:
    from .adapter import StudClient

Callback = Callable[..., Coroutine[Any, Any, None]]

NAME: Final = re.compile(r"^[-_\w]{1,32}$")
"""What Discord accepts as a command or option name (lowercase, where the script has case)."""
DESCRIPTION_LIMIT: Final = 100
OPTION_DESCRIPTIONS: Final = family("adapters.option", [
    "join.buy_in", "config.ante", "config.bring_in", "config.small", "config.big", "config.timer", "config.view",
    "config.lang", "kick.name", "history.count", "help.command", "addbot.name", "lang.language",
    "stats.player", "top.net", "top.period"])
"""Each option's description, by ``command.option``."""
OPTION_NAMES: Final = family("adapters.option_name", [
    "buy_in", "ante", "bring_in", "small", "big", "timer", "view", "lang", "name", "count", "command", "language",
    "player", "net", "period"])
VIEW_CHOICES: Final = family("adapters.view", WORD_KEYS["view"])
PERIOD_CHOICES: Final = family("adapters.period", PERIODS)


async def _run(interaction: discord.Interaction[discord.Client], text: str) -> None:
    client = cast("StudClient", interaction.client)
    await client.adapter.handle_interaction(interaction, text)


def _clip(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def description(tr: Translator, name: str) -> str:
    """A subcommand's description: its usage line without the syntax, capitalized, at most 100 characters."""
    text = usage_text(tr, name).split(": ", 1)[-1].strip()
    return _clip(text[:1].upper() + text[1:]) or name


def valid_name(word: str) -> bool:
    """A name Discord accepts for a command or an option (1-32 word characters or dashes, lowercase)."""
    return bool(NAME.fullmatch(word)) and word == word.lower()


@cache
def command_names(lang: str) -> dict[str, str]:
    """The subcommands' names in ``lang`` (only those that differ from the English name).

    A word Discord would refuse, or two commands with the same word, keep their English names.
    """
    tr = translator(lang)
    words = {name: command_word(tr, name).strip().lower() for name in COMMANDS}
    words = {name: word for name, word in words.items() if valid_name(word)}
    final = {name: words.get(name, name) for name in COMMANDS}
    taken: dict[str, int] = {}
    for word in final.values():
        taken[word] = taken.get(word, 0) + 1
    return {name: word for name, word in words.items() if taken[word] == 1 and word != name}


def _option(key: str) -> str:
    """An option's English description (the one Discord shows when it has no translation)."""
    return EN(OPTION_DESCRIPTIONS[key])


def localized(tr: Translator, where: Where, data: Any) -> str | None:
    """The text of one name or description of the tree in ``tr``'s language; None: keep the English."""
    if where is Where.group_description:
        return _clip(tr("adapters.stud_description"))
    if where is Where.command_name and isinstance(data, app_commands.Command):
        return command_names(tr.lang).get(data.name)
    if where is Where.command_description and isinstance(data, app_commands.Command) and data.name in USAGE:
        return description(tr, data.name)
    if where is Where.parameter_name and isinstance(data, app_commands.Parameter):
        key = OPTION_NAMES.get(data.name)
        word = tr(key).strip() if key else ""
        return word if valid_name(word) else None
    if where is Where.parameter_description and isinstance(data, app_commands.Parameter):
        key = OPTION_DESCRIPTIONS.get(f"{data.command.name}.{data.name}")
        return _clip(tr(key)) if key else None
    if where is Where.choice_name and isinstance(data, app_commands.Choice):
        value = str(data.value)
        if value in LANGUAGES:
            return None  # each language is named in itself, whoever reads it
        if value in VIEW_CHOICES:
            return _clip(tr(VIEW_CHOICES[value]))
        if value in PERIOD_CHOICES:
            return _clip(tr(PERIOD_CHOICES[value]))
        if value in USAGE:
            return _clip(command_word(tr, value)) or None
    return None


class CatalogTranslator(app_commands.Translator):
    """The tree's names and descriptions from our catalogs, for the languages we speak (not English)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = language_of(locale.value)
        if lang is None or lang == DEFAULT_LANGUAGE:
            return None
        return localized(translator(lang), context.location, context.data)


_LANGUAGE_CHOICES: Final = [app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in LANGUAGES]


def _plain(name: str) -> Callback:
    async def callback(interaction: discord.Interaction[discord.Client]) -> None:
        await _run(interaction, name)

    return callback


@app_commands.describe(buy_in=_option("join.buy_in"))
async def join(interaction: discord.Interaction[discord.Client],
               buy_in: app_commands.Range[int, 1, 1_000_000_000] | None = None) -> None:
    await _run(interaction, command_text("join", buy_in))


@app_commands.describe(ante=_option("config.ante"), bring_in=_option("config.bring_in"),
                       small=_option("config.small"), big=_option("config.big"), timer=_option("config.timer"),
                       view=_option("config.view"), lang=_option("config.lang"))
@app_commands.choices(view=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["view"]],
                      lang=_LANGUAGE_CHOICES)
async def config(interaction: discord.Interaction[discord.Client],
                 ante: app_commands.Range[int, 0, 1_000_000] | None = None,
                 bring_in: app_commands.Range[int, 0, 1_000_000] | None = None,
                 small: app_commands.Range[int, 1, 1_000_000] | None = None,
                 big: app_commands.Range[int, 1, 1_000_000] | None = None,
                 timer: app_commands.Range[int, 10, 600] | None = None,
                 view: str | None = None, lang: str | None = None) -> None:
    await _run(interaction, command_text("config", ante=ante, bring_in=bring_in, small=small, big=big, timer=timer,
                                         view=view, lang=lang))


@app_commands.describe(name=_option("kick.name"))
async def kick(interaction: discord.Interaction[discord.Client],
               name: app_commands.Range[str, 1, 32]) -> None:
    await _run(interaction, command_text("kick", name))


@app_commands.describe(count=_option("history.count"))
async def history(interaction: discord.Interaction[discord.Client],
                  count: app_commands.Range[int, 1, 20] | None = None) -> None:
    await _run(interaction, command_text("history", count))


@app_commands.describe(command=_option("help.command"))
@app_commands.choices(command=[app_commands.Choice(name=c, value=c) for c in COMMANDS])
async def help_(interaction: discord.Interaction[discord.Client], command: str | None = None) -> None:
    await _run(interaction, command_text("help", command))


@app_commands.describe(language=_option("lang.language"))
@app_commands.choices(language=_LANGUAGE_CHOICES)
async def lang(interaction: discord.Interaction[discord.Client], language: str | None = None) -> None:
    await _run(interaction, command_text("lang", language))


@app_commands.describe(name=_option("addbot.name"))
async def addbot(interaction: discord.Interaction[discord.Client],
                 name: app_commands.Range[str, 1, 32] | None = None) -> None:
    await _run(interaction, command_text("addbot", name))


# ---- stats: /stud stats [player], /stud top [net] [period]


@app_commands.describe(player=_option("stats.player"))
async def stats(interaction: discord.Interaction[discord.Client],
                player: app_commands.Range[str, 1, 32] | None = None) -> None:
    await _run(interaction, command_text("stats", player))


@app_commands.describe(net=_option("top.net"), period=_option("top.period"))
@app_commands.choices(period=[app_commands.Choice(name=p, value=p) for p in PERIODS])
async def top(interaction: discord.Interaction[discord.Client], net: bool | None = None,
              period: str | None = None) -> None:
    """Wallets, unless net winnings are asked for (a period alone asks for them too)."""
    await _run(interaction, command_text("top", "net", period or "all") if net or period else "top")


_WITH_OPTIONS: dict[str, Callback] = {"join": join, "config": config, "kick": kick, "history": history,
                                      "help": help_, "addbot": addbot, "lang": lang, "stats": stats, "top": top}


def stud_group() -> app_commands.Group:
    """``/stud <command>`` for every command of the grammar (24 of Discord's 25 subcommands)."""
    group = app_commands.Group(name="stud", description=EN("adapters.stud_description"), guild_only=True)
    for name in COMMANDS:
        callback = _WITH_OPTIONS.get(name) or _plain(name)
        group.add_command(app_commands.Command(name=name, description=description(EN, name), callback=callback))
    return group
