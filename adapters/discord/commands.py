"""The ``/stud`` command group: one subcommand per command of the grammar, typed options.

Each subcommand only builds the grammar's command string (``join 200``,
``config ante=1 timer=30``, ``kick Bob``) and hands it to the adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.commands import COMMANDS, USAGE, WORD_KEYS

from .render import command_text

if TYPE_CHECKING:
    from .adapter import StudClient

Callback = Callable[..., Coroutine[Any, Any, None]]


async def _run(interaction: discord.Interaction[discord.Client], text: str) -> None:
    client = cast("StudClient", interaction.client)
    await client.adapter.handle_interaction(interaction, text)


def _description(name: str) -> str:
    text = USAGE[name].split(": ", 1)[-1]
    return (text[:1].upper() + text[1:])[:100]


def _plain(name: str) -> Callback:
    async def callback(interaction: discord.Interaction[discord.Client]) -> None:
        await _run(interaction, name)

    return callback


@app_commands.describe(buy_in="Chips to bring from your wallet (default: 20 big bets)")
async def join(interaction: discord.Interaction[discord.Client],
               buy_in: app_commands.Range[int, 1, 1_000_000_000] | None = None) -> None:
    await _run(interaction, command_text("join", buy_in))


@app_commands.describe(ante="Ante", bring_in="Bring-in", small="Small bet (third and fourth street)",
                       big="Big bet (fifth street on)", timer="Seconds to act (10 to 600)",
                       view="The board as an image (with a text summary) or as text")
@app_commands.choices(view=[app_commands.Choice(name=v, value=v) for v in WORD_KEYS["view"]])
async def config(interaction: discord.Interaction[discord.Client],
                 ante: app_commands.Range[int, 0, 1_000_000] | None = None,
                 bring_in: app_commands.Range[int, 0, 1_000_000] | None = None,
                 small: app_commands.Range[int, 1, 1_000_000] | None = None,
                 big: app_commands.Range[int, 1, 1_000_000] | None = None,
                 timer: app_commands.Range[int, 10, 600] | None = None,
                 view: str | None = None) -> None:
    await _run(interaction, command_text("config", ante=ante, bring_in=bring_in, small=small, big=big, timer=timer,
                                         view=view))


@app_commands.describe(name="The player's name at the table")
async def kick(interaction: discord.Interaction[discord.Client],
               name: app_commands.Range[str, 1, 32]) -> None:
    await _run(interaction, command_text("kick", name))


@app_commands.describe(count="How many hands (1 to 20, default 5)")
async def history(interaction: discord.Interaction[discord.Client],
                  count: app_commands.Range[int, 1, 20] | None = None) -> None:
    await _run(interaction, command_text("history", count))


@app_commands.describe(command="A command to explain")
@app_commands.choices(command=[app_commands.Choice(name=c, value=c) for c in COMMANDS])
async def help_(interaction: discord.Interaction[discord.Client], command: str | None = None) -> None:
    await _run(interaction, command_text("help", command))


@app_commands.describe(name="The bot's name (default Bot<seat>)")
async def addbot(interaction: discord.Interaction[discord.Client],
                 name: app_commands.Range[str, 1, 32] | None = None) -> None:
    await _run(interaction, command_text("addbot", name))


_WITH_OPTIONS: dict[str, Callback] = {"join": join, "config": config, "kick": kick, "history": history,
                                      "help": help_, "addbot": addbot}


def stud_group() -> app_commands.Group:
    """``/stud <command>`` for every command of the grammar (23 of Discord's 25 subcommands)."""
    group = app_commands.Group(name="stud", description="Seven Card Stud Hi-Lo, eight or better",
                               guild_only=True)
    for name in COMMANDS:
        callback = _WITH_OPTIONS.get(name) or _plain(name)
        group.add_command(app_commands.Command(name=name, description=_description(name), callback=callback))
    return group
