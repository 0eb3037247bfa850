"""The one command registry (bot/table/routes.py): every command of the grammar has one route, the
cluster's 'anywhere' commands are those that need no table, and a name with no route is a usage error."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from adapters.console.chat import ConsoleMessenger
from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.core.errors import UsageError
from bot.core.i18n import EN
from bot.core.ports import Inbound, Reply
from bot.schema import MIGRATIONS
from bot.store import open_sqlite
from bot.table.routes import Registry, Route
from bot.text.grammar import COMMANDS, Command, parse


@pytest.mark.asyncio
async def test_every_command_has_one_route(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "routes.db"), schema=MIGRATIONS)
    try:
        bot = build_bot(Settings(), store=store, messenger=ConsoleMessenger(lambda line: None), clock=ManualClock())
        assert bot.registry.names() == set(COMMANDS)
        anywhere = {name for name in COMMANDS if not bot.needs_table(name)}
        # what the cluster answered wherever a command arrived before the registry (its ANYWHERE list)
        assert anywhere == {"help", "rules", "lang", "top", "stats", "hand", "export", "replay", "verify"}
        at_tournament = {name for name in COMMANDS if bot.registry.route(name).at_tournament is not None}
        assert at_tournament == {"join", "addbot", "start", "leave", "kick", "stop", "config", "settle"}
    finally:
        await store.close()


def test_a_name_with_no_route_is_a_usage_error_worded_as_an_unknown_word() -> None:
    with pytest.raises(UsageError) as routed:
        Registry({}).route("dance")
    with pytest.raises(UsageError) as parsed:
        parse("dance")
    assert routed.value.text(EN) == parsed.value.text(EN)


def test_one_part_of_a_route_given_twice_is_refused() -> None:
    async def answer(msg: Inbound, command: Command) -> Reply:
        return Reply("")

    class Twice:
        def routes(self) -> Mapping[str, Route]:
            return {"help": Route(free=answer)}

    with pytest.raises(ValueError, match="routed twice"):
        Registry.of([Twice(), Twice()])
