"""Nothing a user types can crash a table or the bot; a wrong configuration is a clear message."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_console import Table

from bot.commands import COMMANDS
from bot.i18n import LANGUAGES, translator
from bot.ports import Inbound

WORDS = st.sampled_from([*COMMANDS, "stud", "/join", "@1.0", "@99.99", "=", "ante=", "big=-1", "timer=99999",
                         "9" * 30, "-5", "0", "ann", "📣", "\x00", "''", "join@studbot", "config", "raise@x",
                         "lang=ru", "lang=xx", "lang=", "ru", "pl", "Русский", "пас", "колл", "сесть", "sprawdzam"])
LOCALES = st.sampled_from([None, "ru", "pl-PL", "en-US", "en", "xx", "", "ру", "\x00", "pt-BR"])
BUG = {translator(lang)("error.bug") for lang in LANGUAGES}
TEXT = st.one_of(st.text(max_size=40), st.lists(WORDS, max_size=5).map(" ".join))
ROOT = Path(__file__).resolve().parent.parent


@settings(max_examples=int(os.environ.get("STUD_FUZZ_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(st.sampled_from(["ann", "bob", "cat"]), TEXT, LOCALES), min_size=1, max_size=25))
def test_random_input_never_crashes_and_never_moves_chips_wrongly(tmp_path_factory, lines) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        db = tmp_path_factory.mktemp("fuzz") / "t.db"
        async with Table(db) as t:
            await t.say("ann", "new")
            await t.say("ann", "join 100")
            await t.say("bob", "join 100")
            await t.say("ann", "start")
            for user, text, locale in lines:
                msg = Inbound(platform="console", community="local", channel="main", user=user, name=user,
                              text=text, locale=locale)
                reply = await t.bot.handle(msg)
                assert isinstance(reply.text, str)
                assert reply.text not in BUG, (user, text, locale)
                await t.clock.settle()
            wallets = await t.store.fetch("SELECT COUNT(*) FROM wallets")
            assert await t.store.chip_total() == 1000 * wallets[0][0]

    asyncio.run(scenario())


def test_a_wrong_setting_is_a_clear_message_and_status_2() -> None:
    env = {**os.environ, "STUDBOT_TURN_TIMER": "soon"}
    proc = subprocess.run([sys.executable, "-m", "adapters.run"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 2
    assert "STUDBOT_TURN_TIMER='soon' is not a whole number of seconds" in proc.stderr
    assert proc.stdout == ""
