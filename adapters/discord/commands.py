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
from typing import Any, Final

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from adapters.discord.render import command_text
from adapters.discord.sink import sink_of
from bot.core.i18n import DEFAULT_LANGUAGE, EN, LANGUAGE_NAMES, LANGUAGES, Translator, family, language_of, translator
from bot.core.limits import (
    MAX_BUYIN,
    MAX_EXPORT,
    MAX_HISTORY,
    MAX_REPLAY,
    MAX_SEATS,
    MAX_STACK,
    MAX_TIMEBANK,
    MAX_TIMER,
    MIN_SEATS,
    MIN_STACK,
    MIN_TIMER,
    PACES,
    PAYOUTS,
    PERIODS,
    STAKE_LIMIT,
)
from bot.core.model import MIX, MIX_HANDS_RANGE, TABLE_GAMES
from bot.text.grammar import (
    ACTIONS,
    BIG_ACTIONS,
    COMMANDS,
    TOURNEY_SUBCOMMANDS,
    TURN_ACTIONS,
    USAGE,
    WORD_KEYS,
    command_word,
    usage_text,
)

Callback = Callable[..., Coroutine[Any, Any, None]]

NAME: Final = re.compile(r"^[-_\w]{1,32}$")
"""What Discord accepts as a command or option name (lowercase, where the script has case)."""
DESCRIPTION_LIMIT: Final = 100
OPTION_DESCRIPTIONS: Final = family("adapters.option", [
    "join.buy_in", "config.ante", "config.bring_in", "config.small", "config.big", "config.timer", "config.view",
    "config.lang", "kick.name", "history.count", "help.command", "addbot.name", "lang.language", "hand.number",
    "export.number", "export.last", "export.everyone", "hand.replay", "hand.last", "act.action",
    "tourney.action", "tourney.seats", "tourney.stack", "tourney.buyin", "tourney.levels", "tourney.pace",
    "tourney.payout", "seed.text", "verify.hand", "config.reveal", "stats.player", "top.net", "top.period",
    "config.timebank", "config.timebank_refill", "pause.resume", "rebuy.chips", "config.approve", "sitout.name",
    "sitout.back", "ledger.action", "ledger.payer", "ledger.payee", "config.chip_value", "config.currency",
    "config.game", "config.mix_hands", "tourney.game", "stats.game"])
"""Each option's description, by ``command.option``."""
OPTION_NAMES: Final = family("adapters.option_name", [
    "buy_in", "ante", "bring_in", "small", "big", "timer", "view", "lang", "name", "count", "command", "language",
    "number", "last", "action", "seats", "stack", "buyin", "levels", "pace", "payout", "text", "hand", "reveal",
    "player", "net", "period", "everyone", "timebank", "timebank_refill", "resume", "chips",
    "approve", "back", "payer", "payee", "chip_value", "currency",
    "replay", "game", "mix_hands"])
BUTTONS_ONLY: Final = frozenset({"approve", "deny"})
"""Commands with no subcommand (Discord allows 25): a host answers a request with the buttons under it."""
VIEW_CHOICES: Final = family("adapters.view", WORD_KEYS["view"])
GAME_CHOICES: Final = family("adapters.game", WORD_KEYS["game"])
BIG_CHOICES: Final = family("adapters.act_big", BIG_ACTIONS)
"""G5's double bet among '/stud act' choices, named in each language."""
REVEAL_CHOICES: Final = family("adapters.reveal", WORD_KEYS["reveal"])
APPROVE_CHOICES: Final = family("adapters.approve", WORD_KEYS["approve"])
PERIOD_CHOICES: Final = family("adapters.period", PERIODS)
LEDGER_ACTIONS: Final = ("show", "csv", "settle", "paid")
"""What /stud ledger does: 'ledger', 'ledger csv', 'settle', 'paid PAYER PAYEE' (one subcommand for the three
commands of the night's ledger, within Discord's 25)."""
LEDGER_CHOICES: Final = family("adapters.ledger_action", LEDGER_ACTIONS[:2])
TOURNEY_CHOICES: Final = {**family("adapters.tourney_action", TOURNEY_SUBCOMMANDS), **family("adapters.pace", PACES),
                          **{p: k for p, k in zip(PAYOUTS, family("adapters.payout", [p.replace("/", "-")
                                                                                       for p in PAYOUTS]).values(),
                                                  strict=True)}}
"""The choices of /stud tourney (its actions, paces and payouts) -> their catalog keys."""


async def _run(interaction: discord.Interaction[discord.Client], text: str) -> None:
    await sink_of(interaction).handle_interaction(interaction, text)


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
    if where is Where.command_name and isinstance(data, app_commands.Command) and data.name == ACT:
        word = tr("adapters.act_name").strip().lower()
        return word if valid_name(word) and word not in command_names(tr.lang).values() else None
    if where is Where.command_description and isinstance(data, app_commands.Command) and data.name == ACT:
        return _clip(tr("adapters.act_description"))
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
        if value in GAME_CHOICES:
            return _clip(tr(GAME_CHOICES[value]))
        if value in BIG_CHOICES:
            return _clip(tr(BIG_CHOICES[value]))
        if value in TOURNEY_CHOICES:
            return _clip(tr(TOURNEY_CHOICES[value]))
        if value in REVEAL_CHOICES:
            return _clip(tr(REVEAL_CHOICES[value]))
        if value in APPROVE_CHOICES:
            return _clip(tr(APPROVE_CHOICES[value]))
        if value in PERIOD_CHOICES:
            return _clip(tr(PERIOD_CHOICES[value]))
        if value in LEDGER_CHOICES:
            return _clip(tr(LEDGER_CHOICES[value]))
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
                       view=_option("config.view"), lang=_option("config.lang"), reveal=_option("config.reveal"),
                       timebank=_option("config.timebank"), timebank_refill=_option("config.timebank_refill"),
                       approve=_option("config.approve"), chip_value=_option("config.chip_value"),
                       currency=_option("config.currency"), game=_option("config.game"),
                       mix_hands=_option("config.mix_hands"))
@app_commands.choices(view=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["view"]],
                      game=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["game"]],
                      lang=_LANGUAGE_CHOICES,
                      reveal=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["reveal"]],
                      approve=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["approve"]])
async def config(interaction: discord.Interaction[discord.Client],
                 ante: app_commands.Range[int, 0, STAKE_LIMIT] | None = None,
                 bring_in: app_commands.Range[int, 0, STAKE_LIMIT] | None = None,
                 small: app_commands.Range[int, 1, STAKE_LIMIT] | None = None,
                 big: app_commands.Range[int, 1, STAKE_LIMIT] | None = None,
                 timer: app_commands.Range[int, MIN_TIMER, MAX_TIMER] | None = None,
                 view: str | None = None, lang: str | None = None, reveal: str | None = None,
                 timebank: app_commands.Range[int, 0, MAX_TIMEBANK] | None = None,
                 timebank_refill: app_commands.Range[str, 3, 9] | None = None, approve: str | None = None,
                 chip_value: app_commands.Range[str, 1, 12] | None = None,
                 currency: app_commands.Range[str, 1, 8] | None = None, game: str | None = None,
                 mix_hands: app_commands.Range[int, MIX_HANDS_RANGE[0], MIX_HANDS_RANGE[1]] | None = None) -> None:
    await _run(interaction, command_text("config", ante=ante, bring_in=bring_in, small=small, big=big, timer=timer,
                                         view=view, lang=lang, reveal=reveal, timebank=timebank,
                                         timebank_refill=timebank_refill, approve=approve, chip_value=chip_value,
                                         currency=currency, game=game, mix_hands=mix_hands))


MERGED: Final = {"resume": "pause", "back": "sitout", "rules": "help", "settle": "ledger", "paid": "ledger",
                  "replay": "hand"}
"""Commands that are an option of another's subcommand (Discord allows 25 subcommands): ``/stud pause resume:True``,
``/stud sitout back:True``, ``/stud help command:rules`` (the rules themselves), ``/stud ledger action:settle``
and ``action:paid``, ``/stud hand replay:True`` (its page; ``last:`` N hands)."""


@app_commands.describe(resume=_option("pause.resume"))
async def pause(interaction: discord.Interaction[discord.Client], resume: bool | None = None) -> None:
    """The host's clocks: ``pause``, or ``resume`` with the option."""
    await _run(interaction, "resume" if resume else "pause")


@app_commands.describe(name=_option("kick.name"))
async def kick(interaction: discord.Interaction[discord.Client],
               name: app_commands.Range[str, 1, 32]) -> None:
    await _run(interaction, command_text("kick", name))


@app_commands.describe(name=_option("sitout.name"), back=_option("sitout.back"))
async def sitout(interaction: discord.Interaction[discord.Client],
                 name: app_commands.Range[str, 1, 32] | None = None, back: bool | None = None) -> None:
    """Sit out (yourself, or the player named, by the host), or ``back`` with the option."""
    await _run(interaction, "back" if back else command_text("sitout", name))


@app_commands.describe(chips=_option("rebuy.chips"))
async def rebuy(interaction: discord.Interaction[discord.Client],
                chips: app_commands.Range[int, 1, 1_000_000_000] | None = None) -> None:
    await _run(interaction, command_text("rebuy", chips))


@app_commands.describe(count=_option("history.count"))
async def history(interaction: discord.Interaction[discord.Client],
                  count: app_commands.Range[int, 1, MAX_HISTORY] | None = None) -> None:
    await _run(interaction, command_text("history", count))


@app_commands.describe(command=_option("help.command"))
@app_commands.choices(command=[app_commands.Choice(name=c, value=c) for c in COMMANDS
                              if c not in ACTIONS and c not in BUTTONS_ONLY and (c not in MERGED or c == "rules")])
async def help_(interaction: discord.Interaction[discord.Client], command: str | None = None) -> None:
    """One command's usage; ``rules``: the rules themselves (``/stud rules`` would be a 26th subcommand)."""
    await _run(interaction, "rules" if command == "rules" else command_text("help", command))


@app_commands.describe(language=_option("lang.language"))
@app_commands.choices(language=_LANGUAGE_CHOICES)
async def lang(interaction: discord.Interaction[discord.Client], language: str | None = None) -> None:
    await _run(interaction, command_text("lang", language))


@app_commands.describe(name=_option("addbot.name"))
async def addbot(interaction: discord.Interaction[discord.Client],
                 name: app_commands.Range[str, 1, 32] | None = None) -> None:
    await _run(interaction, command_text("addbot", name))


# ---- provably fair decks (issue 12, fairbot): /stud seed, /stud verify



@app_commands.describe(text=_option("seed.text"))
async def seed(interaction: discord.Interaction[discord.Client],
               text: app_commands.Range[str, 1, 64] | None = None) -> None:
    await _run(interaction, command_text("seed", text))


@app_commands.describe(hand=_option("verify.hand"))
async def verify(interaction: discord.Interaction[discord.Client],
                 hand: app_commands.Range[int, 1, 1_000_000_000]) -> None:
    await _run(interaction, command_text("verify", hand))


# ------------------------------------------------------------------ hand history (issue 12)


@app_commands.describe(number=_option("hand.number"), replay=_option("hand.replay"), last=_option("hand.last"))
async def hand(interaction: discord.Interaction[discord.Client],
               number: app_commands.Range[int, 1, 1_000_000_000] | None = None, replay: bool | None = None,
               last: app_commands.Range[int, 1, MAX_REPLAY] | None = None) -> None:
    """The hand told street by street; ``replay:True``: its replayer page (``last:`` N of them)."""
    if not replay and last is None:
        await _run(interaction, command_text("hand", number))
        return
    words = ["replay"] + ([str(number)] if number is not None else []) + (["last", str(last)] if last else [])
    await _run(interaction, " ".join(words))  # both: the grammar answers with the usage


@app_commands.describe(number=_option("export.number"), last=_option("export.last"),
                       everyone=_option("export.everyone"))
async def export(interaction: discord.Interaction[discord.Client],
                 number: app_commands.Range[int, 1, 1_000_000_000] | None = None,
                 last: app_commands.Range[int, 1, MAX_EXPORT] | None = None, everyone: bool = False) -> None:
    words = ["export"] + ([str(number)] if number is not None else []) + (["last", str(last)] if last else [])
    words += ["all"] if everyone else []
    await _run(interaction, " ".join(words))  # both: the grammar answers with the usage


@app_commands.describe(action=_option("ledger.action"), payer=_option("ledger.payer"), payee=_option("ledger.payee"))
@app_commands.choices(action=[app_commands.Choice(name=a, value=a) for a in LEDGER_ACTIONS])
async def ledger(interaction: discord.Interaction[discord.Client], action: str | None = None,
                 payer: app_commands.Range[str, 1, 32] | None = None,
                 payee: app_commands.Range[str, 1, 32] | None = None) -> None:
    """The night's ledger: shown, as a file, settled, or one payment marked paid."""
    if action == "paid":
        text = command_text("paid", payer, payee)  # without both names: the grammar answers with the usage
    elif action == "settle":
        text = "settle"
    else:
        text = command_text("ledger", "csv" if action == "csv" else None)
    await _run(interaction, text)


ACT: Final = "act"
"""One subcommand for the betting actions (the buttons under the board are the usual way), so that
every other command keeps its own subcommand within Discord's 25."""


@app_commands.describe(action=_option("act.action"))
@app_commands.choices(action=[app_commands.Choice(name=a, value=a) for a in TURN_ACTIONS])
async def act(interaction: discord.Interaction[discord.Client], action: str) -> None:
    await _run(interaction, action)


# Sit-and-go tournaments (bot/tourney): one subcommand, its action and the options of 'new'.
@app_commands.describe(action=_option("tourney.action"), seats=_option("tourney.seats"),
                       stack=_option("tourney.stack"), buyin=_option("tourney.buyin"),
                       levels=_option("tourney.levels"), pace=_option("tourney.pace"),
                       payout=_option("tourney.payout"), game=_option("tourney.game"))
@app_commands.choices(action=[app_commands.Choice(name=a, value=a) for a in TOURNEY_SUBCOMMANDS],
                      pace=[app_commands.Choice(name=p, value=p) for p in PACES],
                      payout=[app_commands.Choice(name=p, value=p) for p in PAYOUTS],
                      game=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["game"]])
async def tourney(interaction: discord.Interaction[discord.Client], action: str | None = None,
                  seats: app_commands.Range[int, MIN_SEATS, MAX_SEATS] | None = None,
                  stack: app_commands.Range[int, MIN_STACK, MAX_STACK] | None = None,
                  buyin: app_commands.Range[int, 0, MAX_BUYIN] | None = None,
                  levels: app_commands.Range[str, 7, 12] | None = None,
                  pace: str | None = None, payout: str | None = None, game: str | None = None) -> None:
    new = any(v is not None for v in (seats, stack, buyin, levels, pace, payout, game))
    await _run(interaction, command_text("tourney", action or ("new" if new else None), seats=seats, stack=stack,
                                         buyin=buyin, levels=levels, pace=pace, payout=payout, game=game))


# ---- stats: /stud stats [player], /stud top [net] [period]


@app_commands.describe(player=_option("stats.player"), game=_option("stats.game"))
@app_commands.choices(game=[app_commands.Choice(name=g, value=g) for g in TABLE_GAMES if g != MIX])
async def stats(interaction: discord.Interaction[discord.Client],
                player: app_commands.Range[str, 1, 32] | None = None, game: str | None = None) -> None:
    await _run(interaction, command_text("stats", game, player))


@app_commands.describe(net=_option("top.net"), period=_option("top.period"))
@app_commands.choices(period=[app_commands.Choice(name=p, value=p) for p in PERIODS])
async def top(interaction: discord.Interaction[discord.Client], net: bool | None = None,
              period: str | None = None) -> None:
    """Wallets, unless net winnings are asked for (a period alone asks for them too)."""
    await _run(interaction, command_text("top", "net", period or "all") if net or period else "top")


_WITH_OPTIONS: dict[str, Callback] = {"join": join, "config": config, "pause": pause, "kick": kick, "history": history,
                                      "rebuy": rebuy, "sitout": sitout,
                                      "help": help_, "addbot": addbot, "lang": lang, "hand": hand, "export": export,
                                      "tourney": tourney, "seed": seed, "verify": verify, "stats": stats, "top": top,
                                      "ledger": ledger}


def stud_group() -> app_commands.Group:
    """``/stud <command>`` for every command of the grammar but the actions, and ``/stud act <action>``."""
    group = app_commands.Group(name="stud", description=EN("adapters.stud_description"), guild_only=True)
    for name in COMMANDS:
        if name in ACTIONS or name in MERGED or name in BUTTONS_ONLY:
            continue
        callback = _WITH_OPTIONS.get(name) or _plain(name)
        group.add_command(app_commands.Command(name=name, description=description(EN, name), callback=callback))
    group.add_command(app_commands.Command(name=ACT, description=EN("adapters.act_description"), callback=act))
    return group
