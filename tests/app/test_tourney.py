"""Sit-and-go tournaments (issue 13) in script mode: a whole turbo sit-and-go to its end, its
registration, and the refusals.

The transcript test plays seed 57 of a 4-player turbo sit-and-go (one human, three house bots,
200 chips each, a level every 2 hands so that the stakes catch the stacks quickly): in hand 17
two bots are out at once and are placed by the chips they started that hand with (Max, with
186, second and paid; Dora, with 45, third).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path

import pytest
from backends import rows, rows_now
from tourney_script import play_sng

from adapters.console.app import ScriptSession
from bot.bootstrap import audit_file
from bot.core.config import Settings
from bot.core.model import HandSetup
from bot.core.names import display_name, plain
from bot.core.ports import Inbound
from bot.store import Tx
from bot.tourney.schedule import level_stakes
from engine import HandFile
from engine.games import MIX_ORDER, Game
from engine.verify import verify_hand_file

pytestmark = pytest.mark.usefixtures("store_backend")

SETUP = ["ann: tourney new seats=4 pace=turbo payout=65/35 stack=200 buyin=100 levels=hands:2", "ann: register",
         "ann: addbot Robo", "ann: addbot Dora", "ann: addbot Max"]
LEVEL = re.compile(r"^\[table\] Level (\d+) from this hand: ante (\d+), bring-in (\d+), bets (\d+)/(\d+)\.$")
HAND = re.compile(r"^\[table\] Hand #(\d+): ")  # a deal
OUT = re.compile(r"^\[table\] (\S+) is out in place (\S+) of 4")


def test_a_turbo_sit_and_go_to_its_end(tmp_path: Path) -> None:
    db = tmp_path / "sng.db"
    played = asyncio.run(play_sng(db=str(db), seed=57, setup=SETUP))
    lines = played.lines
    # Levels rise on schedule: level k from hand 2k-1, at the stakes of the schedule.
    levels: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if m := LEVEL.match(line):
            hand = next(int(h.group(1)) for later in lines[i:] if (h := HAND.match(later)))
            k = int(m.group(1))
            s = level_stakes(k)
            assert tuple(int(x) for x in m.groups()[1:]) == (s.ante, s.bring_in, s.small_bet, s.big_bet)
            levels.append((k, hand))
    assert levels == [(k, 2 * k - 1) for k in range(1, len(levels) + 1)] and len(levels) >= 8
    players = {u: (place, prize, start, out) for u, place, prize, start, out in rows_now(
        db, "SELECT user_id, place, prize, start_chips, out_hand FROM tourney_players")}
    wallets = dict(rows_now(db, "SELECT user_id, balance FROM wallets"))
    [hands] = rows_now(db, "SELECT COUNT(*), SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END) FROM hands")
    [(tables,)] = rows_now(db, "SELECT COUNT(*) FROM tables WHERE open = 1")
    # Two out in one hand, placed by the chips they started it with: more is the better place.
    together = [u for u in players if players[u][3] == 17]
    assert sorted(together) == ["bot:dora", "bot:max"]
    assert players["bot:max"][2] > players["bot:dora"][2]
    assert (players["bot:max"][0], players["bot:dora"][0]) == (2, 3)
    outs = [(m.group(1), m.group(2)) for line in lines if (m := OUT.match(line))]
    assert ("Max", "2") in outs and ("Dora", "3") in outs
    # 65/35 of the 400 in the pool, into the wallets (a house bot's into the house's bankroll); places 1..4.
    assert sorted((p[0], p[1]) for p in players.values()) == [(1, 260), (2, 140), (3, 0), (4, 0)]
    [(house,)] = rows_now(db, "SELECT SUM(amount) FROM ledger_entries WHERE account = 'house:console:local'")
    bots = [u for u in players if u != "ann"]
    assert list(wallets) == ["ann"]  # house bots have no wallets
    assert wallets["ann"] == 900 + players["ann"][1]
    assert house == sum(players[u][1] - 100 for u in bots)  # their buy-ins out of it, their prizes into it
    assert wallets["ann"] + house == 1000  # wallet chips conserved across the tournament
    assert hands[0] == hands[1] and tables == 0
    assert any(line.startswith("[table] 🏆 ") for line in lines)
    # No commitment is published for a hand that is never dealt (the last hand was #17).
    committed = [int(m.group(1)) for line in lines if (m := re.match(r"^\[table\] Deck #(\d+) ", line))]
    assert committed == list(range(1, 18)), committed
    final = lines.index(next(line for line in lines if "final standings" in line))
    assert [re.sub(r"\s+", " ", line) for line in lines[final + 1:final + 5]] == [
        f"[table] {i}. {n} — {c}" for i, n, c in _standings(players)]
    report = asyncio.run(audit_file(str(db), replay=True))
    assert report.ok and report.tournaments == 1, report.summary()
    last = max(i for i, line in enumerate(lines) if HAND.match(line))
    print("\n" + "\n".join(line for line in lines[last:final + 5] if not line.startswith(("[dm ", "[ok]"))))


def test_item5_a_sit_and_go_with_reveal_stop_reveals_every_seed_at_its_end(tmp_path: Path) -> None:
    """Its end is the table's stop: every finished hand's seed, hidden while it was played, is revealed then,
    and every hand file verifies."""
    db = tmp_path / "sng.db"
    played = asyncio.run(play_sng(db=str(db), seed=57, setup=[SETUP[0], "ann: config reveal=stop", *SETUP[1:]]))
    lines = played.lines
    assert any("only when the table stops" in line for line in lines)
    assert not any(re.search(r"seed [0-9a-f]{4}…[0-9a-f]{4} · verify", line) for line in lines)  # none while played
    done = rows_now(db, "SELECT hand_no, hand_file FROM hands WHERE status = 'done' ORDER BY hand_no")
    assert len(done) >= 10 and rows_now(db, "SELECT COUNT(*) FROM tables WHERE open = 1") == [(0,)]
    end = next(i for i, line in enumerate(lines) if "revealed now that it has stopped" in line)
    assert end > next(i for i, line in enumerate(lines) if line.startswith("[table] 🏆 "))
    revealed = {int(m.group(1)): (m.group(2), m.group(3)) for line in lines[end + 1:]
                if (m := re.match(r"^\[table\] #(\d+): ([0-9a-f]{64}) \(SHA-256 ([0-9a-f]{64})\)$", line))}
    assert set(revealed) == {no for no, _ in done}
    for no, text in done:
        hand_file = HandFile.from_json(text)
        assert hand_file.fair is not None and hand_file.fair.server_seed is not None
        assert (hand_file.fair.server_seed.hex(), hand_file.fair.commitment) == revealed[no]
        assert verify_hand_file(hand_file).ok, no
    assert rows_now(db, "SELECT COUNT(*) FROM fair_seeds WHERE revealed = 0 AND hand_no <= ?",
                    (max(no for no, _ in done),)) == [(0,)]


def test_item4_a_sit_and_go_shows_its_first_commitment_before_the_pause(tmp_path: Path) -> None:
    db = tmp_path / "sng.db"

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=2 buyin=10")
            await s.say("ann: register")
            out = await s.say("ann: addbot")  # full: it starts
            assert any(x.startswith("[table] Deck #1 ") for x in out), out
            assert not any(HAND.match(x) for x in out)  # shown, not dealt
            assert not any(HAND.match(x) for x in await s.say("/sleep 4"))
            assert any(HAND.match(x) for x in await s.say("/sleep 1"))

    asyncio.run(go())


def _standings(players: dict[str, tuple[int, int, int, int]]) -> list[tuple[int, str, str]]:
    names = {"ann": "ann", "bot:robo": "Robo", "bot:dora": "Dora", "bot:max": "Max"}
    return [(p[0], names[u], f"{p[1]} chips" if p[1] != 1 else "1 chip")
            for u, p in sorted(players.items(), key=lambda kv: kv[1][0])]


class Script:
    """One script session: lines in, what it printed out."""

    def __init__(self, db: Path, *, balance: int = 1000) -> None:
        self.db, self.balance = db, balance
        self.out: list[str] = []

    async def __aenter__(self) -> Script:
        self.session = await ScriptSession.open(db=str(self.db), seed=1,
                                                settings=Settings(starting_balance=self.balance),
                                                write=self.out.append)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.close()

    async def say(self, line: str) -> list[str]:
        start = len(self.out)
        await self.session.feed(line)
        return self.out[start:]


async def wallet(db: Path, user: str) -> int:
    [(balance,)] = await rows(db, "SELECT balance FROM wallets WHERE user_id = ?", (user,))
    return int(balance)


async def house(db: Path) -> int:
    """The house bots' bankroll at the console's community."""
    [(balance,)] = await rows(db, "SELECT COALESCE(SUM(amount), 0) FROM ledger_entries "
                                  "WHERE account = 'house:console:local'")
    return int(balance)


def test_registration_buy_ins_refunds_and_refusals(tmp_path: Path) -> None:
    db = tmp_path / "reg.db"

    async def go() -> None:
        async with Script(db) as s:
            assert any("no sit-and-go" in x for x in await s.say("ann: register"))
            assert any("must be from 2 to 8" in x for x in await s.say("ann: tourney new seats=9"))
            assert any("hands:N or minutes:N" in x for x in await s.say("ann: tourney new levels=weeks:2"))
            out = await s.say("ann: tourney new seats=3 buyin=300 pace=normal payout=winner")
            assert any("opens sit-and-go #1 (Stud Hi-Lo): 3 seats, buy-in 300 chips" in x for x in out)
            await s.say("ann: register")
            assert await wallet(db, "ann") == 700
            assert any("Already registered" in x for x in await s.say("ann: register"))
            assert any("a sit-and-go needs a channel" in x for x in await s.say("bob: tourney new"))
            assert any("register instead" in x for x in await s.say("bob: join"))
            await s.say("bob: register")
            assert any("Unregistered; 300 chips back" in x for x in await s.say("bob: unregister"))
            assert await wallet(db, "bob") == 1000
            assert any("Only the table's creator" in x for x in await s.say("bob: start"))
            assert any("Two players" in x or "two" in x.lower() for x in await s.say("ann: start"))
            assert any("registration 1/3 (ann)" in x for x in await s.say("ann: tourney"))
            out = await s.say("ann: stop")  # before the start: cancelled, buy-ins back
            assert any("cancelled; every buy-in goes back" in x for x in out)
            assert await wallet(db, "ann") == 1000
            # A new one, started by its creator with two, then nobody leaves it.
            await s.say("ann: tourney new seats=5 buyin=50 levels=minutes:3")
            await s.say("ann: register")
            await s.say("ann: addbot")
            assert any("starts: 2 players" in x for x in await s.say("ann: start"))
            assert any("Registration is closed" in x for x in await s.say("bob: register"))
            assert any("nobody leaves" in x for x in await s.say("ann: leave"))
            assert any("nobody leaves" in x for x in await s.say("ann: config ante=5"))
            status = await s.say("ann: tourney")
            assert any("level 1: ante 2, bring-in 3, bets 10/20; next level in: 3 minutes" in x for x in status), status
            levels = await s.say("ann: tourney levels")
            assert any(" 5     8    12     40/80" in x for x in levels), levels
            assert any(x.endswith("10/20 ◀") for x in "\n".join(levels).splitlines()), levels  # level 1 now
        report = await audit_file(str(db))
        assert report.ok and report.tournaments == 2, report.summary()

    asyncio.run(go())


def test_a_short_wallet_cannot_register(tmp_path: Path) -> None:
    db = tmp_path / "short.db"

    async def go() -> None:
        async with Script(db, balance=50) as s:
            await s.say("ann: tourney new buyin=100")
            assert any("The buy-in is 100 chips; your wallet has 50 chips" in x for x in await s.say("ann: register"))
            # the refusal changed nothing: not even a wallet was opened
            assert await rows(db, "SELECT COUNT(*) FROM wallets") == [(0,)]
            assert await rows(db, "SELECT COUNT(*) FROM tourney_players") == [(0,)]

    asyncio.run(go())


@pytest.mark.parametrize("lang,word", [("ru", "турнир"), ("pl", "turniej")])
def test_the_words_in_every_language(tmp_path: Path, lang: str, word: str) -> None:
    async def go() -> None:
        async with Script(tmp_path / f"{lang}.db") as s:
            await s.say(f"ann: lang {lang}")
            out = await s.say(f"ann: {word} levels")
            assert any(("Уровень" if lang == "ru" else "Poziom") in x for x in out), out

    asyncio.run(go())


def test_levels_by_the_minute_on_the_manual_clock(tmp_path: Path) -> None:
    """levels=minutes:2: the level changes with the first hand dealt after two minutes of play,
    never before. (Script mode's manual clock starts again at the wall clock's time on each run,
    so a restart is not tried here: tests/slow/test_crash_tourney.py restarts hand-counted levels.)"""
    db = tmp_path / "minutes.db"

    def levels(out: list[str]) -> list[int]:
        return [int(m.group(1)) for line in out if (m := LEVEL.match(line))]

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=2 stack=5000 buyin=10 levels=minutes:2")
            await s.say("ann: register")
            assert levels(await s.say("ann: addbot Robo")) == [1]  # full: it starts at level 1
            await s.say("ann: sitout")  # her turns are taken at once: hands follow each other
            seen: list[str] = []
            for _ in range(22):  # 110 seconds
                seen += await s.say("/sleep 5")
            assert levels(seen) == [] and sum(bool(HAND.match(x)) for x in seen) >= 3
            status = await s.say("ann: tourney")
            assert any("level 1:" in x and "next level in: 1 minute." in x for x in status), status
            seen = []
            for _ in range(6):
                seen += await s.say("/sleep 5")
            assert levels(seen) == [2], seen
            first = next(i for i, x in enumerate(seen) if LEVEL.match(x))
            assert HAND.match(next(x for x in seen[first:] if x.startswith("[table] Hand #")))
        assert (await audit_file(str(db))).ok

    asyncio.run(go())


# ---------------------------------------------------------------- issue 19, item 2: names, failed deals, cancel


async def as_user(s: Script, user: str, name: str, text: str) -> list[str]:
    """A line from a user whose platform name is ``name`` (the console names everyone by their id)."""
    start = len(s.out)
    reply = await s.session.bot.handle(Inbound(platform="console", community="local", channel="main", user=user,
                                               name=name, text=text))
    await s.session.clock.settle()
    return [*s.out[start:], *(f"[dm {user}] {line}" for line in reply.text.splitlines())]


def test_item2_two_entrants_named_alike_are_told_apart_and_dealt(tmp_path: Path) -> None:
    """Two players both named 'Alex' (and a bot 'Alex' before them): the sit-and-go fills, starts
    and deals, its players shown 'Alex', 'Alex2', 'Alex3' as at a cash table; nothing sticks."""
    db = tmp_path / "alex.db"

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=3 buyin=100 stack=500")
            await s.say("ann: addbot Alex")
            assert any("alex is already seated here" in x for x in await s.say("ann: addbot alex"))
            assert any("registers" in x for x in await as_user(s, "u1", "Alex", "register"))
            out = await as_user(s, "u2", "alex", "register")
            assert any("Seats:" in x for x in out), out
            assert not any("appears twice" in x for x in out), out
            [seats] = [x for x in out if "Seats:" in x]
            assert sorted(seats.split("Seats: ")[1].rstrip(".").split(", ")) == ["Alex", "Alex2", "alex3"]
            assert any(x.startswith("[table] Deck #1 ") for x in out), out  # committed, then dealt after the pause
            assert any(HAND.match(x) for x in await s.say("/sleep 5"))  # hand 1 is dealt
            assert sorted(n for (n,) in await rows(db, "SELECT name FROM tourney_players")) == \
                ["Alex", "Alex2", "alex3"]
            status = await s.say("ann: tourney")
            assert any("Alex2 500" in x and "alex3 500" in x for x in status), status
        report = await audit_file(str(db))
        assert report.ok, report.summary()

    asyncio.run(go())


def test_item11_top_counts_no_tournament_chips_while_a_sit_and_go_runs(tmp_path: Path) -> None:
    """Issue 19 item 11: while a sit-and-go ran, ``top`` added its tournament chips to the wallet
    (900 in the wallet and 1,500 tournament chips showed 2,400), and listed the house bot."""
    db = tmp_path / "top.db"

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=2 buyin=100")
            await s.say("ann: register")
            assert any("starts: 2 players" in x for x in await s.say("ann: addbot Robo"))
            assert await rows(db, "SELECT status FROM tournaments") == [("running",)]
            assert await s.say("ann: top") == ["[dm ann] 1. ann 900", "[ok] ann"]
        report = await audit_file(str(db))
        assert report.ok and report.issued == 1000, report.summary()

    asyncio.run(go())


def test_item2_empty_names_do_not_stop_a_sit_and_go(tmp_path: Path) -> None:
    """Two names with nothing visible in them ('' and zero-width junk): shown 'player' and 'player2'."""
    db = tmp_path / "empty.db"

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=2 buyin=100 stack=500")
            await as_user(s, "u1", "", "register")
            out = await as_user(s, "u2", "\u200b\u2069", "register")
            assert any("Seats: " in x and "player" in x and "player2" in x for x in out), out
            assert any(HAND.match(x) for x in await s.say("/sleep 5"))
        assert (await audit_file(str(db))).ok

    asyncio.run(go())


HOSTILE_NAMES = {"bidi": "\u202eAlex", "zero": "Al\u200bex\ufeff", "newline": "Al\nex\r\nthe great",
                 "long": "x" * 4000}


def test_item2_tournament_names_are_cleaned_as_cash_seats_are(tmp_path: Path) -> None:
    """Bidi controls, zero-width look-alikes, newlines, 4,000 characters: each entrant's name is stored
    and shown as a cash seat would show it (bot.core.names.display_name), unlike the others'."""
    db = tmp_path / "names.db"

    async def go() -> None:
        async with Script(db) as s:
            out = await as_user(s, "u0", "\u202eann\n" + "y" * 4000, "tourney new seats=5 buyin=10 stack=500")
            opener = display_name("\u202eann yyyyyyyyyyyyyyyyyyyy")  # as a cash table's opener is shown
            assert any(x.startswith(f"[table] {opener} opens sit-and-go #1") for x in out), out
            for user, name in HOSTILE_NAMES.items():
                out = await as_user(s, user, name, "register")
                assert not any("appears twice" in x for x in out), out
            stored = dict(await rows(db, "SELECT user_id, name FROM tourney_players"))
            assert stored["bidi"] == display_name(HOSTILE_NAMES["bidi"])
            assert stored["zero"] == "Alex2"  # zero-width junk dropped: it reads 'Alex', as the first one does
            assert stored["newline"] == "Al ex the great"
            assert stored["long"] == "x" * 24
            for name in stored.values():
                assert "\n" not in name and "\u200b" not in name and len(name) <= 26
            assert len({plain(n).lower() for n in stored.values()}) == len(stored)
            await as_user(s, "u0", "whoever", "start")  # the creator starts it: every name dealt as stored
            seats = dict(await rows(db, "SELECT user_id, name FROM seats"))
            assert seats == stored
        assert (await audit_file(str(db))).ok

    asyncio.run(go())


def broken_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal fails inside its transaction, after it has written the hand's row."""
    begin_hand = Tx.begin_hand

    async def begin_and_fail(self: Tx, **kwargs: object) -> int:
        await begin_hand(self, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("injected: the deal fails")

    monkeypatch.setattr(Tx, "begin_hand", begin_and_fail)


def test_item2_a_failed_deal_is_told_and_the_creator_cancels_with_every_buy_in_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "failed.db"
    caplog.set_level(logging.ERROR)

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=3 buyin=100 stack=500")
            await s.say("ann: register")
            await s.say("bob: register")
            broken_deal(monkeypatch)
            out = await s.say("ann: addbot Robo")  # full: it starts and shows its first deck's commitment
            assert any(x.startswith("[table] Deck #1 ") for x in out), out
            out = await s.say("/sleep 5")  # after the pause its first deal fails
            assert any("Hand #1 could not be dealt" in x and "'stop'" in x for x in out), out
            assert not any("injected" in x for x in out), out  # logged, not shown
            [failed] = [r for r in caplog.records if "dealing hand #1 failed" in r.getMessage()]
            assert failed.exc_info is not None and "injected" in str(failed.exc_info[1])
            # nothing of the deal is stored: no hand, no player seeds in its fair record, hand_no unchanged
            assert await rows(db, "SELECT COUNT(*) FROM hands") == [(0,)]
            assert await rows(db, "SELECT COUNT(*) FROM fair_seeds WHERE player_seeds IS NOT NULL") == [(0,)]
            assert await rows(db, "SELECT hand_no, running FROM tables") == [(0, 0)]
            assert (await audit_file(str(db))).ok
            assert any("nobody leaves" in x for x in await s.say("bob: leave"))  # answered, as in any sit-and-go
            assert any("Only the table's creator" in x for x in await s.say("bob: tourney cancel"))
            assert any("Only the table's creator" in x for x in await s.say("bob: stop"))
            out = await s.say("ann: tourney cancel")
            assert any("Sit-and-go #1 is cancelled; every buy-in goes back" in x for x in out), out
            assert {u: await wallet(db, u) for u in ("ann", "bob")} == {"ann": 1000, "bob": 1000}
            assert await house(db) == 0  # Robo's buy-in is back in the house's bankroll
            assert await rows(db, "SELECT status FROM tournaments") == [("cancelled",)]
            assert await rows(db, "SELECT COUNT(*) FROM seats") == [(0,)]
            assert any("Sit-and-go #1 was cancelled" in x for x in await s.say("ann: tourney"))
        report = await audit_file(str(db), replay=True)
        assert report.ok and report.tournaments == 1, report.summary()

    asyncio.run(go())


def test_item2_after_a_failed_deal_and_a_restart_start_deals_and_cancel_calls_off_the_hand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deal fails; the bot restarts; the creator's 'start' deals again; hands are played; then
    the creator cancels mid-hand: the hand is called off, the tournament chips go back to their
    account, every buy-in to its wallet (those already out too), and the audit passes."""
    db = tmp_path / "restart.db"

    async def go() -> None:
        async with Script(db) as s:
            await s.say("ann: tourney new seats=3 buyin=100 levels=hands:1")
            await s.say("ann: register")
            await s.say("ann: addbot Robo")
            with monkeypatch.context() as patch:
                broken_deal(patch)
                await s.say("ann: addbot Dora")
                assert any("could not be dealt" in x for x in await s.say("/sleep 5"))
        async with Script(db) as s:  # a restart: the tournament is still there, waiting
            assert any("level 1" in x for x in await s.say("ann: tourney"))
            assert any("Only the table's creator" in x for x in await s.say("bob: start"))
            assert any("Dealing in 5 s" in x for x in await s.say("ann: start"))
            out = await s.say("/sleep 5")
            assert any(HAND.match(x) for x in out), out
            await s.say("ann: sitout")  # her turns are taken at once: hands follow each other
            for _ in range(40):
                await s.say("/sleep 5")
                [(done,)] = await rows(db, "SELECT COUNT(*) FROM hands WHERE status = 'done'")
                if done >= 2:
                    break
            assert done >= 2
            await s.say("ann: back")  # the next hand waits for her
            for _ in range(40):
                await s.say("/sleep 1")
                if await rows(db, "SELECT COUNT(*) FROM hands WHERE status = 'playing'") == [(1,)]:
                    break
            assert await rows(db, "SELECT COUNT(*) FROM tournaments WHERE status = 'running'") == [(1,)]
            out = await s.say("ann: stop")
            assert any("The hand in progress is called off; sit-and-go #1 is cancelled" in x for x in out), out
            assert await wallet(db, "ann") == 1000 and await house(db) == 0  # the bots' buy-ins back to the house
            [(in_play,)] = await rows(db, "SELECT COALESCE(SUM(amount), 0) FROM ledger_entries "
                                          "WHERE account = 'tournament-chips:1'")
            assert in_play == 0
            assert await rows(db, "SELECT COUNT(*) FROM hands WHERE status = 'playing'") == [(0,)]
        report = await audit_file(str(db), replay=True)
        assert report.ok and report.tournaments == 1, report.summary()

    asyncio.run(go())


@pytest.mark.parametrize("value", ["\u0663", "\uff15\uff10", "1\u0660"])
def test_item12_tourney_options_take_ascii_digits_only(tmp_path: Path, value: str) -> None:
    """'buyin=٣' is read as 'join ٣' is: not a whole number, with the usage; nothing opens."""
    async def go() -> None:
        async with Script(tmp_path / "digits.db") as s:
            for option in ("buyin", "seats", "stack"):
                out = await s.say(f"ann: tourney new {option}={value}")
                assert any(f"{value!r} is not a whole number; usage: tourney" in x for x in out), out
            assert any("hands:N or minutes:N" in x for x in await s.say(f"ann: tourney new levels=hands:{value}"))
            assert any(f"{value!r} is not a whole number" in x for x in await s.say(f"ann: join {value}"))
            assert await rows(tmp_path / "digits.db", "SELECT COUNT(*) FROM tournaments") == [(0,)]

    asyncio.run(go())


@pytest.mark.parametrize("lang,said", [("en", "Sit-and-go #1 was cancelled; every buy-in went back"),
                                        ("ru", "Турнир №1 был отменён"), ("pl", "Turniej nr 1 został odwołany")])
def test_item12_tourney_after_a_cancel_says_cancelled(tmp_path: Path, lang: str, said: str) -> None:
    async def go() -> None:
        async with Script(tmp_path / f"{lang}.db") as s:
            await s.say(f"ann: lang {lang}")
            await s.say("ann: tourney new seats=3")
            await s.say("ann: register")
            await s.say("ann: tourney cancel")
            for asked in ("ann: tourney", "ann: tourney results"):
                out = await s.say(asked)
                assert any(said in x for x in out), out
                assert not any("nobody placed" in x or "никто не занял" in x or "nikt jeszcze" in x for x in out)

    asyncio.run(go())


def test_item11_stats_and_top_net_keep_a_sit_and_go_apart(tmp_path: Path) -> None:
    """Tournament chips are not money: after a sit-and-go, ann's stats have no cash hands and a line
    of her places, prizes and buy-ins; ``top net`` has nothing to rank (the bots are never ranked)."""
    db = tmp_path / "sng.db"
    asyncio.run(play_sng(db=str(db), seed=57, setup=SETUP))  # ann is out 4th of 4 (see the transcript test)

    async def go() -> None:
        async with Script(db) as s:
            assert await s.say("ann: stats") == [
                "[dm ann] ann has not played a hand at a cash table here yet.",
                "[dm ann] Sit-and-gos played: 1; places: 4th ×1; prizes won: 0 chips; buy-ins paid: 100 chips",
                "[ok] ann"]
            assert await s.say("ann: top net all") == ["[dm ann] No hands were played here in that period.",
                                                       "[ok] ann"]
            assert await s.say("ann: top") == ["[dm ann] 1. ann 900", "[ok] ann"]
            assert any("Nobody called Robo" in x for x in await s.say("ann: stats Robo"))

    asyncio.run(go())


MIX_SETUP = ["ann: tourney new seats=3 pace=turbo payout=winner stack=300 buyin=10 levels=hands:2 game=mix",
             "ann: register", "ann: addbot Robo", "ann: addbot Dora"]
LEVEL_GAME = re.compile(r"^\[table\] Level (\d+) from this hand, ([^:]+): ante (\d+), bring-in (\d+), "
                        r"bets (\d+)/(\d+)\.$")


def test_rule_g8_a_mix_sit_and_go_changes_the_game_with_each_level(tmp_path: Path) -> None:
    """G8: with game=mix each level deals the next game of Razz, Stud, Stud Hi-Lo (announced with the level, before
    its first hand); every hand is stored with the game it was dealt in and replays in it."""
    db = tmp_path / "mix.db"
    played = asyncio.run(play_sng(db=str(db), seed=11, setup=MIX_SETUP))
    lines = played.lines
    assert any("opens sit-and-go #1 (Stud mix): 3 seats" in line for line in lines)
    names = {"Razz": Game.RAZZ, "Stud": Game.STUD, "Stud Hi-Lo": Game.STUD8}
    announced = {int(m.group(1)): names[m.group(2)] for line in lines if (m := LEVEL_GAME.match(line))}
    assert len(announced) >= 4, lines
    assert all(game is MIX_ORDER[(k - 1) % 3] for k, game in announced.items())
    assert not any(line.startswith("[table] Level ") and not LEVEL_GAME.match(line) for line in lines)
    [(started,)] = rows_now(db, "SELECT started_hand FROM tournaments")
    done = rows_now(db, "SELECT hand_no, setup, hand_file FROM hands WHERE status = 'done' ORDER BY hand_no")
    games = set()
    for no, setup, text in done:
        level = 1 + (no - started - 1) // 2
        game = HandSetup.from_json(json.loads(setup)).game
        assert game is MIX_ORDER[(level - 1) % 3], (no, level, game)
        assert HandFile.from_json(text).game is game
        games.add(game)
    assert games == set(MIX_ORDER)
    assert rows_now(db, "SELECT game FROM tournaments") == [("mix",)]
    assert any(line.startswith("[table] Sit-and-go #1 (Stud mix), final standings") for line in lines)
    report = asyncio.run(audit_file(str(db), replay=True))
    assert report.ok, report.summary()


def test_rule_g8_tourney_levels_name_each_levels_game_and_the_game_is_the_tournaments(tmp_path: Path) -> None:
    db = tmp_path / "levels.db"

    async def go() -> None:
        async with Script(db) as s:
            plain_levels = await s.say("ann: tourney levels")
            assert any("With game=mix the game changes with each level: Razz, Stud, Stud Hi-Lo" in x
                       for x in plain_levels), plain_levels
            await s.say("ann: tourney new seats=3 game=razz")
            assert rows_now(db, "SELECT game FROM tournaments") == [("razz",)]
            assert rows_now(db, "SELECT game FROM tables") == [("razz",)]
            status = await s.say("ann: tourney")
            assert any("Sit-and-go #1 (Razz): registration 0/3" in x for x in status), status
            await s.say("ann: tourney cancel")
            await s.say("ann: tourney new seats=3 game=mix")
            levels = "\n".join(x.removeprefix("[dm ann] ") for x in await s.say("ann: tourney levels"))
            assert "Level · ante · bring-in · bets · game" in levels
            rows_of = [line.split() for line in levels.splitlines() if line.split() and line.split()[0].isdigit()]
            assert [" ".join(r[4:]) for r in rows_of[:4]] == ["Razz", "Stud", "Stud Hi-Lo", "Razz"], levels
            assert any("game=" in x and "stud8" in x for x in await s.say("ann: tourney new game=chess"))
            await s.say("ann: config game=stud")  # the table's game is the tournament's: 'config' changes nothing
            assert rows_now(db, "SELECT game FROM tables WHERE open = 1") == [("razz",)]

    asyncio.run(go())
