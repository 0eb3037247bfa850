"""The board's buttons: dynamic items whose custom_id carries the command and its turn.

Registered at start-up (``client.add_dynamic_items``), so a press on a board
posted before a restart still reaches the bot.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord import render
from adapters.discord.sink import sink_of


class StudButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=render.TEMPLATE):
    def __init__(self, command: str, *, label: str = "", row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=render.clip_label(label or command.split()[0]),
                                           style=render.button_style(command),
                                           custom_id=render.custom_id_of(command)), row=row)
        self.command = command

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StudButton:
        label = getattr(item, "label", None)
        return cls(render.command_from_match(match), label=label if isinstance(label, str) else "")

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        await sink_of(interaction).handle_interaction(interaction, self.command)
