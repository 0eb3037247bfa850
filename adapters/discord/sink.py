"""Where buttons and ``/stud`` commands hand an interaction: the adapter, reached through the client."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import discord


class InteractionSink(Protocol):
    """Runs an interaction's command text (:class:`adapters.discord.adapter.DiscordAdapter` is one)."""

    async def handle_interaction(self, interaction: discord.Interaction[discord.Client], text: str) -> None: ...


@runtime_checkable
class SinkClient(Protocol):
    """A client that knows its sink (:class:`adapters.discord.adapter.StudClient` is one)."""

    @property
    def adapter(self) -> InteractionSink: ...


def sink_of(interaction: discord.Interaction[discord.Client]) -> InteractionSink:
    """The sink of the client that received ``interaction``."""
    client = interaction.client
    if not isinstance(client, SinkClient):
        raise TypeError(f"{type(client).__name__} has no interaction sink (not a StudClient)")
    return client.adapter
