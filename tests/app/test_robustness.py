"""Nothing a user types can crash a table or the bot; a wrong configuration is a clear message."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_console import SETTINGS, Table

from bot.bootstrap import AUDIT_CHECKS
from bot.chips import wallets as chip_wallets
from bot.chips.audit import audit
from bot.core.i18n import LANGUAGES, translator
from bot.core.ports import Inbound
from bot.store import Tx
from bot.table.session import read_ledger
from bot.text.grammar import COMMANDS

WORDS = st.sampled_from([*COMMANDS, "stud", "/join", "@1.0", "@99.99", "=", "ante=", "big=-1", "timer=99999",
                         "9" * 30, "-5", "0", "ann", "📣", "\x00", "''", "join@studbot", "config", "raise@x",
                         "lang=ru", "lang=xx", "lang=", "ru", "pl", "Русский", "пас", "колл", "сесть", "sprawdzam"])
LOCALES = st.sampled_from([None, "ru", "pl-PL", "en-US", "en", "xx", "", "ру", "\x00", "pt-BR"])
BUG = {translator(lang)("error.bug") for lang in LANGUAGES}
TEXT = st.one_of(st.text(max_size=40), st.lists(WORDS, max_size=5).map(" ".join))
ROOT = Path(__file__).resolve().parents[2]


def test_random_input_never_crashes_and_never_moves_chips_wrongly(tmp_path_factory: pytest.TempPathFactory,
                                                                   store_backend: Backend) -> None:
    """Random lines from three users in random locales, on a table mid-hand. On PostgreSQL fewer examples
    (STUD_FUZZ_EXAMPLES_PG, 30): each is a new database, and the input handling is the same code."""
    examples = int(os.environ.get("STUD_FUZZ_EXAMPLES_PG" if store_backend.postgresql else "STUD_FUZZ_EXAMPLES",
                                  "30" if store_backend.postgresql else "150"))

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(lines=st.lists(st.tuples(st.sampled_from(["ann", "bob", "cat"]), TEXT, LOCALES), min_size=1, max_size=25))
    def fuzz(lines: list[tuple[str, str, str | None]]) -> None:
        async def scenario(lines: list[tuple[str, str, str | None]]) -> None:
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
                assert await chip_wallets.chip_total(t.store) == 1000 * wallets[0][0]
                report = await audit(t.store, checks=AUDIT_CHECKS)
                assert report.ok and report.issued == 1000 * wallets[0][0], report.summary()

        asyncio.run(scenario(lines))

    fuzz()


PEOPLE = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou")


def _next_line(rng: random.Random, t: Table, creator: str, *, host: bool = False) -> tuple[str, str]:
    """(user, text) or ("/sleep", seconds): what someone does next, at any moment of a hand."""
    rt = t.bot.tables.get("console:main")
    if rt is None:  # stopped: a new day may pass before someone opens a table again (broke wallets refill)
        return ("/sleep", str(24 * 3600)) if rng.random() < 0.3 else (rng.choice(PEOPLE), "new")
    hand, table = rt.hand, rt.table
    seated = [s for s in table.seats.values() if not s.is_bot]
    if hand is not None and not hand.is_over and hand.actor is not None and rng.random() < 0.45:
        player = rt.names[hand.actor]
        action = rng.choice(hand.legal_actions()).value
        return player, f"{action} @{rt.turn}" if rng.random() < 0.8 else action
    roll = rng.random()
    if roll < 0.16:
        free = [p for p in PEOPLE if table.seat_of(p) is None]
        if free:
            amount = rng.choice(["", " 10", " 50", " 100", " 200", " 5000"])
            return rng.choice(free), f"join{amount}"
    if roll < 0.24 and seated:
        return rng.choice(seated).user, "leave"
    if roll < 0.30 and table.seats:
        return creator, f"kick {rng.choice(list(table.seats.values())).name}"
    if roll < 0.38 and seated:
        return rng.choice(seated).user, "sitout"
    if roll < 0.48 and (out := [s for s in seated if s.sitting_out]):
        return rng.choice(out).user, "back"
    if roll < 0.52 and sum(s.is_bot for s in table.seats.values()) < 3:
        return creator, "addbot"
    if roll < 0.60:
        return creator, "start"
    if roll < 0.61:  # closed (after its hand), then a day may pass: broke players are refilled at the next join
        return creator, "stop"
    if roll < 0.626:  # stakes change for the next hand (big ones bust players, who then get refills)
        return creator, rng.choice(["config ante=1 bring_in=2 small=5 big=10",
                                    "config ante=5 bring_in=10 small=25 big=50",
                                    "config ante=0 bring_in=5 small=20 big=40 timer=10"])
    if roll < 0.75:
        return "/sleep", str(rng.choice([1, 5, 5, 30, 61]))  # the next hand; a turn that times out
    if host and roll < 0.82:  # issue 22: rebuys, approvals, the host's sitout, a pause, a settle-up, its payments
        named = [s.name for s in table.seats.values()] or ["nobody"]
        return rng.choice([
            *[(rng.choice(seated).user if seated else creator, rng.choice(["rebuy", "rebuy 20", "rebuy 150"]))] * 3,
            (creator, f"approve {rng.choice(named)}"), (creator, f"deny {rng.choice(named)}"),
            (creator, rng.choice(["config approve=on", "config approve=off"])),
            (creator, f"sitout {rng.choice(named)}"), (creator, "pause"), (creator, "resume"), (creator, "resume"),
            (rng.choice(PEOPLE), "pause"), (creator, "settle"), (rng.choice(PEOPLE), "ledger"),
            (rng.choice(PEOPLE), f"paid {rng.choice(PEOPLE)} {rng.choice(PEOPLE)}")])
    return rng.choice(PEOPLE), rng.choice(["call", "fold", "check", "bet", "raise", "complete", "bring-in",
                                           "cards", "board", "top", "history 3", "join", "leave"])


@pytest.mark.asyncio
async def test_comings_and_goings_at_any_moment_keep_every_chip(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                               store_backend: Backend) -> None:
    """Hundreds of hands where people join, leave, are kicked, sit out, come back, time out and sit
    down in seats freed moments ago, at any moment of a hand; after every line the audit passes
    and the chips in wallets and seats are exactly those granted and refilled. On PostgreSQL 120
    hands (STUD_FUZZ_HANDS_PG): the same moves, a third of the time."""
    rng = random.Random(int(os.environ.get("STUD_FUZZ_SEED", "11")))
    target = int(os.environ.get("STUD_FUZZ_HANDS_PG", "120") if store_backend.postgresql
                 else os.environ.get("STUD_FUZZ_HANDS", "300"))
    caplog.set_level(logging.ERROR)
    lines = 0
    mid_hand = dict.fromkeys(("join", "leave", "kick", "sitout", "back", "addbot"), 0)  # done during a hand
    settings = replace(SETTINGS, starting_balance=200)  # wallets small enough to go broke and be refilled
    async with Table(tmp_path / "t.db", seed=rng.randrange(10**6), settings=settings) as t:
        creator = "ann"
        hands = 0
        while hands < target:
            user, text = _next_line(rng, t, creator)
            if user == "/sleep":
                await t.wait(float(text))
            else:
                rt = t.bot.tables.get("console:main")
                playing = rt is not None and rt.hand is not None and not rt.hand.is_over
                reply = await t.bot.handle(t.chat.inbound(user, text))
                if playing and reply.ok and text.split()[0] in mid_hand:
                    mid_hand[text.split()[0]] += 1
                assert reply.text not in BUG, (lines, user, text)
                await t.clock.settle()
                if text == "new" and reply.ok:
                    creator = user
            lines += 1
            report = await audit(t.store, checks=AUDIT_CHECKS)
            assert report.ok, (lines, user, text, report.summary())
            wallets = await t.store.fetch("SELECT COUNT(*) FROM wallets")
            refills = await t.store.fetch("SELECT COALESCE(SUM(e.amount), 0) FROM ledger_transfers x JOIN "
                                          "ledger_entries e ON e.transfer_id = x.id WHERE x.kind = 'refill' "
                                          "AND e.account != 'house'")
            granted = settings.starting_balance * wallets[0][0] + refills[0][0]
            assert await chip_wallets.chip_total(t.store) == granted == report.issued, (lines, user, text)
            hands = report.hands
        kinds = {r[0] for r in await t.store.fetch("SELECT DISTINCT kind FROM ledger_transfers")}
        replayed = await audit(t.store, checks=AUDIT_CHECKS,
                               replay=True)  # every settled hand's movements, against the engine's replay
        assert replayed.ok and replayed.replayed == hands, replayed.summary()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[-3000:]
    # House bots are never refilled (they have no wallets): the refills are of players gone broke.
    assert kinds >= {"grant", "buy-in", "cash-out", "kick", "closed", "ante", "win", "uncalled", "refill"}, kinds
    assert all(mid_hand.values()), mid_hand
    print(f"\nfuzz: {lines} lines, {hands} hands, {report.transfers} transfers of {len(kinds)} kinds, "
          f"during hands: {mid_hand}; the audit passed after every line")


@pytest.mark.asyncio
async def test_the_hosts_night_at_any_moment_keeps_every_chip_and_the_session_ledger(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, store_backend: Backend) -> None:
    """Issue 22 in the same random sessions: besides the comings and goings, rebuys (at once and waiting for a
    hand's end), approvals and denials, the host sitting players out, pauses and resumes, settle-ups and payments
    marked by anyone, at any moment. After every line the audit passes, the chips are exactly those granted and
    refilled, and the running session's ledger adds up to zero and holds each seated player's stack."""
    rng = random.Random(int(os.environ.get("STUD_FUZZ_SEED", "11")) + 22)
    target = int(os.environ.get("STUD_FUZZ_HANDS_PG", "120") if store_backend.postgresql
                 else os.environ.get("STUD_FUZZ_HANDS", "300"))
    caplog.set_level(logging.ERROR)
    lines = sessions = 0
    settings = replace(SETTINGS, starting_balance=200)
    async with Table(tmp_path / "t.db", seed=rng.randrange(10**6), settings=settings) as t:
        creator, hands = "ann", 0
        while hands < target:
            user, text = _next_line(rng, t, creator, host=True)
            if user == "/sleep":
                await t.wait(float(text))
            else:
                reply = await t.bot.handle(t.chat.inbound(user, text))
                assert reply.text not in BUG, (lines, user, text)
                await t.clock.settle()
                if text == "new" and reply.ok:
                    creator = user
            lines += 1
            report = await audit(t.store, checks=AUDIT_CHECKS)
            assert report.ok, (lines, user, text, report.summary())
            wallets = await t.store.fetch("SELECT COUNT(*) FROM wallets")
            refills = await t.store.fetch("SELECT COALESCE(SUM(e.amount), 0) FROM ledger_transfers x JOIN "
                                          "ledger_entries e ON e.transfer_id = x.id WHERE x.kind = 'refill' "
                                          "AND e.account != 'house'")
            granted = settings.starting_balance * wallets[0][0] + refills[0][0]
            assert await chip_wallets.chip_total(t.store) == granted == report.issued, (lines, user, text)
            if (rt := t.bot.tables.get("console:main")) is not None:
                ledger = await read_ledger(t.store.fetch, table_id=rt.table.id, community=rt.table.community,
                                           now=t.clock.now())
                assert sum(line.net for line in ledger.lines) == 0, (lines, user, text, ledger)
                stacks = {line.user: line.stack for line in ledger.lines if not line.is_house}
                assert all(stacks.get(s.user, 0) == s.stack for s in rt.table.seats.values() if not s.is_bot), (
                    lines, user, text, ledger)
            hands = report.hands
        kinds = {r[0] for r in await t.store.fetch("SELECT DISTINCT kind FROM ledger_transfers")}
        [(sessions,)] = [tuple(r) for r in await t.store.fetch("SELECT COUNT(*) FROM table_sessions")]
        replayed = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert replayed.ok and replayed.replayed == hands, replayed.summary()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[-3000:]
    assert kinds >= {"buy-in", "rebuy", "cash-out", "kick", "closed"} and sessions >= 2, (kinds, sessions)
    print(f"\nhost's night: {lines} lines, {hands} hands, {sessions} sessions settled, {report.transfers} transfers; "
          "the audit and the session ledger held after every line")


def test_a_wrong_setting_is_a_clear_message_and_status_2() -> None:
    env = {**os.environ, "STUDBOT_TURN_TIMER": "soon"}
    proc = subprocess.run([sys.executable, "-m", "adapters.run"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 2
    assert "STUDBOT_TURN_TIMER='soon' is not a whole number of seconds" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.asyncio
async def test_item2_a_deal_that_fails_is_told_and_the_table_waits(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    store_backend: Backend) -> None:
    """Issue 19, item 2: the next hand's deal (by the timer) fails inside its transaction. Nothing of
    it is stored, the table is told and waits; 'leave' and 'stop' work, 'start' deals again."""
    caplog.set_level(logging.ERROR)
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        for user in ("ann", "bob", "cat"):
            await t.say(user, "join 100")
        await t.start("ann")  # hand 1 dealt after its commitment's pause
        begin_hand = Tx.begin_hand

        async def begin_and_fail(self: Tx, **kwargs: Any) -> int:
            await begin_hand(self, **kwargs)
            raise RuntimeError("injected: the deal fails")

        monkeypatch.setattr(Tx, "begin_hand", begin_and_fail)
        said = ""
        for _ in range(20):  # hand 1 played out by the timer, then the next deal
            said += await t.wait(61)
            if "could not be dealt" in said:
                break
        assert "Hand #2 could not be dealt" in said and "injected" not in said, said
        assert any("dealing hand #2 failed" in r.getMessage() and r.exc_info for r in caplog.records)
        rt = t.runtime
        assert not rt.table.running and rt.table.hand_no == 1 and rt.hand is not None and rt.hand.is_over
        [(hands,)] = [tuple(r) for r in await t.store.fetch("SELECT COUNT(*) FROM hands")]
        assert hands == 1
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok
        assert "could not be dealt" not in await t.wait(600)  # it waits: no deal tried again by itself
        stack = rt.table.seat_of("cat").stack
        assert f"{stack}" in await t.say("cat", "leave") and rt.table.seat_of("cat") is None
        assert "Hand #2 could not be dealt" in await t.start("bob")  # tried again: fails again
        monkeypatch.undo()
        assert "Hand #2: ann, bob" in await t.start("bob")
        assert "closes after this hand" in await t.say("ann", "stop")  # item 3: the hand is played out first
        await t.call_down(rt)
        assert rt.closed
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok, report.summary()


@pytest.mark.asyncio
@pytest.mark.usefixtures("store_backend")
async def test_redteam_a_nul_or_control_character_in_typed_text_is_answered_not_a_bug(tmp_path: Path) -> None:
    """'stats a<NUL>b' sent the NUL to the database: PostgreSQL refuses it, and the user got the apology for a
    bug. Every command that takes free text, with a NUL and an escape in it, gets an answer."""
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        await t.say("ann", "join")
        for command in ("stats a\x00b", "stats \x00", "stats \x1b[31mann", "stats \ud800", "kick a\x00b",
                        "addbot B\x00t", "seed a\x00b", "help \x00", "hand 1\x00", "config lang=r\x00u",
                        "tourney new\x00"):
            answer = await t.say("ann", command)
            assert answer and not any(bug in answer for bug in BUG), (command, answer)
        assert "usage: stats" in await t.say("bob", "stats a\x00b")
