"""The one command registry: each command name to its :class:`Route`, gathered from the objects that
handle commands (each offers ``routes()``): the application's dispatch is a lookup, and the cluster
asks it where a command runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Protocol

from bot.core.errors import UsageError
from bot.core.ports import Inbound, Reply
from bot.table.runtime import Runtime
from bot.text.grammar import Command

TableHandler = Callable[[Runtime, Inbound, Command], Awaitable[Reply]]
"""A command at the channel's table (its lock held, the table open)."""
FreeHandler = Callable[[Inbound, Command], Awaitable[Reply]]
"""A command answered without the channel's table."""


@dataclass(frozen=True)
class Route:
    """How one command is answered: at the channel's table (:attr:`at_table`) or without it (:attr:`free`)."""

    at_table: TableHandler | None = None
    """The handler at the channel's table (the command needs one)."""
    free: FreeHandler | None = None
    """The handler of a command answered without the channel's table."""
    at_tournament: TableHandler | None = None
    """At a sit-and-go's table, the handler instead of :attr:`at_table` (a cash-table command means
    something else, or nothing, there)."""
    at_channel: bool = False
    """Answered without a table, but where the channel's table is held if there is one (cluster mode):
    'new' and 'tourney' open or act on the channel's table."""

    @property
    def needs_table(self) -> bool:
        """Whether the command runs where the channel's table is held (cluster mode), rather than anywhere."""
        return self.at_table is not None or self.at_tournament is not None or self.at_channel


class Routed(Protocol):
    """An object that handles commands."""

    def routes(self) -> Mapping[str, Route]:
        """Its commands, by name."""


class Registry:
    """Every command's route, by name."""

    def __init__(self, routes: Mapping[str, Route]) -> None:
        self._routes = dict(routes)

    @classmethod
    def of(cls, handlers: Iterable[Routed]) -> Registry:
        """The routes of ``handlers`` together; two parts of one command's route (a tournament's handler
        of a cash-table command) are merged, the same part given twice is a bug."""
        merged: dict[str, Route] = {}
        for handler in handlers:
            for name, route in handler.routes().items():
                known = merged.get(name)
                if known is None:
                    merged[name] = route
                    continue
                for f in fields(Route):
                    mine, theirs = getattr(known, f.name), getattr(route, f.name)
                    if mine and theirs:
                        raise ValueError(f"command {name!r}: {f.name} routed twice")
                    if theirs:
                        known = replace(known, **{f.name: theirs})
                merged[name] = known
        return cls(merged)

    def __contains__(self, name: object) -> bool:
        return name in self._routes

    def names(self) -> frozenset[str]:
        return frozenset(self._routes)

    def route(self, name: str) -> Route:
        """The command's route; a name with none is a :class:`UsageError` (as an unknown word is)."""
        route = self._routes.get(name)
        if route is None:
            raise UsageError("usage.unknown", word=repr(name))
        return route

    def needs_table(self, name: str) -> bool:
        """See :attr:`Route.needs_table` (an unknown name needs none: it is answered where it came)."""
        route = self._routes.get(name)
        return route is not None and route.needs_table
