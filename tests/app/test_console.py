"""The bot as a chat transcript through the console adapter: every command and every refusal.

Time is a manual clock; the database is a real SQLite file, or a PostgreSQL database
(tests/support/backends.py: every test runs on both); house bots act at once.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, execute

from adapters.console.chat import ConsoleChat, ConsoleMessenger
from bot.bootstrap import AUDIT_CHECKS, build_bot
from bot.chips import wallets as chip_wallets
from bot.chips.audit import audit
from bot.chips.ledger import HOUSE, Transfer, wallet_account
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.core.ports import BoardView
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite

pytestmark = pytest.mark.usefixtures("store_backend")
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=1000,
                   time_bank=0)
"""The turn timer alone: the time bank's own tests (test_timebank.py) give it seconds."""


class Table:
    """One console channel with a bot behind it, on a database file that outlives restarts."""

    def __init__(self, db: Path, *, seed: int = 3, clock: ManualClock | None = None,
                 unreachable: set[str] | None = None, settings: Settings = SETTINGS,
                 opener: Callable[[], Awaitable[Store]] | None = None) -> None:
        self.db, self.seed, self.settings = db, seed, settings
        self.opener = opener
        """Opens the database instead of the SQLite file ``db`` (another backend)."""
        self.clock = clock or ManualClock()
        self.out: list[str] = []
        self.unreachable = unreachable if unreachable is not None else set()

    async def __aenter__(self) -> Table:
        self.store = await (self.opener() if self.opener is not None else open_sqlite(str(self.db), schema=MIGRATIONS))
        self.messenger = ConsoleMessenger(self.out.append, unreachable=self.unreachable)
        self.bot = build_bot(self.settings, store=self.store, messenger=self.messenger, clock=self.clock,
                             rng=random.Random(self.seed))
        await self.bot.start()
        await self.clock.settle()
        self.chat = ConsoleChat(self.bot, self.messenger, after=self.clock.settle)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bot.close()
        await self.store.close()

    async def say(self, user: str, text: str) -> str:
        return "\n".join(await self.chat.say(user, text))

    async def start(self, user: str = "ann") -> str:
        """'start', then the table's pause: the first hand's commitment is shown first, its deal comes after
        (FAIRNESS.md). Returns the lines of both."""
        said = await self.say(user, "start")
        return "\n".join([said, await self.wait(self.settings.next_hand_delay)])

    async def wait(self, seconds: float) -> str:
        start = len(self.out)
        await self.clock.advance(seconds)
        return "\n".join(self.out[start:])

    def to_act(self) -> tuple[str, str, str]:
        """(player, legal text, turn token) of the last "to act" line."""
        for line in reversed(self.out):
            m = re.match(r"\[table\] (\S+) to act \(\d+s\): (.*) \[turn (\S+)\]$", line)
            if m:
                return m.group(1), m.group(2), m.group(3)
        raise AssertionError("nobody to act")

    @property
    def runtime(self):  # type: ignore[no-untyped-def]
        return self.bot.tables["console:main"]

    async def call_down(self, rt: Any = None) -> None:
        """Play the hand in progress (of ``rt``, a table that may close meanwhile) to its end: bring in,
        call, check."""
        for _ in range(60):
            hand = (rt or self.runtime).hand
            if hand is None or hand.is_over:
                return
            player, legal, _ = self.to_act()
            await self.say(player, "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check")
        raise AssertionError("the hand does not end")


def _spy(monkeypatch: pytest.MonkeyPatch, messenger: Any, method: str, pick: Callable[[dict[str, Any]], Any]
         ) -> list[Any]:
    """Record ``pick(kwargs)`` of every call of ``messenger.method`` (which still runs)."""
    calls: list[Any] = []
    real = getattr(messenger, method)

    async def spy(**kw: Any) -> Any:
        calls.append(pick(kw))
        return await real(**kw)

    monkeypatch.setattr(messenger, method, spy)
    return calls


async def _two_players(t: Table) -> None:
    await t.say("ann", "new")
    await t.say("ann", "join 100")
    await t.say("bob", "join 100")


@pytest.mark.asyncio
async def test_a_hand_from_new_to_showdown(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        assert "ann opens a Seven Card Stud Hi-Lo table" in await t.say("ann", "new")
        assert "ann sits down with 100 chips" in await t.say("ann", "join 100")
        assert "bob sits down with 200 chips" in await t.say("bob", "join")
        out = await t.start()
        assert "Hand #1: ann, bob." in out and "Door cards:" in out
        assert "[dm ann] Hand #1, your cards: [" in out and "[dm bob] Hand #1, your cards: [" in out
        total = await chip_wallets.chip_total(t.store)
        for _ in range(40):
            hand = t.runtime.hand
            if hand is None or hand.is_over:
                break
            player, legal, _ = t.to_act()
            action = "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check"
            verb = {"bring-in": "brings in", "call": "calls", "check": "checks"}[action]
            assert f"{player} {verb}" in await t.say(player, action)
        assert t.runtime.hand is not None and t.runtime.hand.is_over
        assert any("shows" in line for line in t.out) and any(line.startswith("[table] Pot") for line in t.out)
        assert await chip_wallets.chip_total(t.store) == total
        assert "#1: " in await t.say("ann", "history")
        assert "Hand #2" in await t.wait(5)  # the next hand deals itself


@pytest.mark.asyncio
async def test_history_of_hands_stored_before_keeps_their_old_summaries(tmp_path: Path) -> None:
    """Hands an older version settled keep the summary it wrote ("bob +3", "no chips moved");
    a hand settled now says what was won and the net."""
    db, clock = tmp_path / "t.db", ManualClock()
    async with Table(db, seed=11, clock=clock) as t:
        await _two_players(t)
        for _ in range(2):
            await t.start() if t.runtime.hand is None else await t.wait(5)
            await t.call_down()
    await execute(db, "UPDATE hands SET summary = 'bob +3' WHERE hand_no = 1")  # as the older version stored them
    await execute(db, "UPDATE hands SET summary = 'no chips moved' WHERE hand_no = 2")
    async with Table(db, seed=11, clock=clock) as t:
        await t.wait(5)
        await t.call_down()
        lines = (await t.say("ann", "history")).splitlines()
        assert lines[1:] == ["[dm ann] #2: no chips moved", "[dm ann] #1: bob +3"]
        assert re.fullmatch(r"\[dm ann\] #3: \w+ (won|scooped) \d+ \(net [+-]?\d+\).* — .*", lines[0])
        await t.say("ann", "lang ru")
        assert (await t.say("ann", "history")).splitlines()[1:] == [
            "[dm ann] #2: фишки не переходили из рук в руки", "[dm ann] #1: bob +3"]


@pytest.mark.asyncio
async def test_refusals_change_nothing(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        assert "There is no table in this channel" in await t.say("ann", "join")
        assert "unknown command 'jion'" in await t.say("ann", "jion")
        assert "usage: join [buy-in]" in await t.say("ann", "join lots")
        await _two_players(t)
        assert "already has a table" in await t.say("bob", "new")
        assert "already seated" in await t.say("ann", "join")
        assert "only 1000 chips" in await t.say("cat", "join 5000")
        assert "smallest buy-in here is 10" in await t.say("cat", "join 3")
        assert "No hand is being played" in await t.say("ann", "call")
        assert "no cards in a hand" in await t.say("ann", "cards")
        assert "creator or an admin" in await t.say("bob", "config ante=2")
        assert "do not work" in await t.say("ann", "config bring_in=7")
        assert "timer must be" in await t.say("ann", "config timer=2")
        assert "Nobody called 'zed'" in await t.say("ann", "kick zed")
        assert "creator or an admin" in await t.say("bob", "stop")
        assert "Two players with chips are needed" not in await t.start()
        player, _legal, token = t.to_act()
        other = "bob" if player == "ann" else "ann"
        before = await chip_wallets.chip_total(t.store), len(t.runtime.hand.actions)
        assert "turn, not yours" in await t.say(other, "call")
        assert "not in this hand" in await t.say("cat", "call")
        assert "cannot fold" in await t.say(player, "fold")  # the bring-in cannot fold
        assert "That turn is over" in await t.say(player, "bring-in @1.99")
        assert "takes no arguments" in await t.say(player, "call 5")
        assert "already being played" in await t.say("ann", "start")
        assert (await chip_wallets.chip_total(t.store), len(t.runtime.hand.actions)) == before
        await t.say(player, f"bring-in @{token}")
        assert "That turn is over" in await t.say(player, f"bring-in @{token}")  # the same button twice


@pytest.mark.asyncio
async def test_redteam_hand_numbers_past_the_database_integer_are_no_hand(tmp_path: Path) -> None:
    """'hand', 'export' and 'verify' with a number no database column holds (past 2**63 - 1) get the
    answer of any hand not played, not the apology of a bug (SQLite raised OverflowError)."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        await t.call_down()
        for number in (2 ** 63, 10 ** 25, 10 ** 31):
            for command in ("hand", "export", "verify"):
                said = await t.say("ann", f"{command} {number}")
                assert "went wrong" not in said, (command, said)
                assert "no finished hand #" in said, (command, said)
        assert "Hand #1" in await t.say("ann", "hand 1")  # the table goes on


@pytest.mark.asyncio
async def test_cap_and_fold_reasons(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        await t.start()
        for action in ("bring-in", "complete", "raise", "raise", "raise"):
            player, _, _ = t.to_act()
            await t.say(player, action)
        player, legal, _ = t.to_act()
        assert legal == "call 15 · fold" or "raise" not in legal
        assert "capped" in await t.say(player, "raise")


@pytest.mark.asyncio
async def test_help_rules_top_board(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        assert "Commands:" in await t.say("ann", "help")
        assert "join [buy-in]" in await t.say("ann", "help join")
        assert "eight or better" in await t.say("ann", "rules")
        assert "Nobody has played" in await t.say("ann", "top")
        await _two_players(t)
        top = await t.say("ann", "top")
        assert "1. ann 1000" in top or "1. bob 1000" in top
        assert "Seats: ann 100, bob 100" in await t.say("bob", "board")


@pytest.mark.asyncio
async def test_sitout_back_leave_kick_stop(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 50")
        assert "cat sits out" in await t.say("cat", "sitout")
        assert "already sitting out" in await t.say("cat", "sitout")
        await t.start()
        assert t.runtime.setup is not None and [p.name for p in t.runtime.setup.players] == ["ann", "bob"]
        assert "cat is back" in await t.say("cat", "back")
        assert "cat leaves with 50 chips" in await t.say("cat", "leave")  # not in the hand: at once
        assert "not seated" in await t.say("cat", "leave")
        total = await chip_wallets.chip_total(t.store)
        assert "bob is removed from the table after this hand" in await t.say("ann", "kick bob")
        # bob plays the hand out, and is cashed out when it ends.
        await t.call_down()
        assert "bob" not in [s.name for s in t.runtime.table.seats.values()]
        assert await chip_wallets.chip_total(t.store) == total
        assert "table is closed" in await t.say("ann", "stop")
        assert await chip_wallets.chip_total(t.store) == total
        assert await t.store.wallet("console:local", "ann") is not None
        assert "There is no table" in await t.say("ann", "board")


async def _ann_bets(t: Table) -> str:
    """Play the hand passively until ann may bet (complete, bet or raise), and let her: the output."""
    for _ in range(60):
        player, legal, _ = t.to_act()
        bets = [o.split(" ")[0] for o in legal.split(" · ") if o.split(" ")[0] in ("complete", "bet", "raise")]
        if player == "ann" and bets:
            return await t.say("ann", bets[0])
        await t.say(player, "bring-in" if "bring-in" in legal else "check" if "check" in legal else "call")
    raise AssertionError("ann never gets to bet")


async def _kick_transfers(t: Table, user: str) -> list[int]:
    """The amounts of the 'kick' transfers into ``user``'s wallet."""
    rows = await t.store.fetch(
        "SELECT e.amount FROM ledger_transfers x JOIN ledger_entries e ON e.transfer_id = x.id "
        "WHERE x.kind = 'kick' AND e.account = ?", (wallet_account("console:local", user),))
    return [r["amount"] for r in rows]


@pytest.mark.asyncio
async def test_redteam_back_or_sitout_of_a_player_leaving_after_the_hand_is_refused(tmp_path: Path) -> None:
    """A player who said 'leave' (or was kicked) during a hand goes when it ends: 'back' answered
    "You play from the next hand" and told the table "bob is back", then cashed him out all the same."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        await t.start()
        await t.say("bob", "leave")
        await t.say("ann", "kick cat")
        for user, word in (("bob", "sitout"), ("bob", "back"), ("cat", "sitout"), ("cat", "back")):
            said = await t.say(user, word)
            assert "leave the table when this hand ends" in said, (user, word, said)
            assert "[table]" not in said, (user, word, said)
        assert not t.runtime.table.seat_of("bob").sitting_out  # type: ignore[union-attr]
        await t.call_down()
        assert t.runtime.table.seat_of("bob") is None and t.runtime.table.seat_of("cat") is None
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_item3_kick_during_hand_takes_effect_after_the_hand(tmp_path: Path) -> None:
    """Issue 19 item 3: 'ann: bet', 'ann: kick bob' used to fold bob at once and give ann the pot.
    Now bob keeps his turn, his timer and his choices; he is told he goes after the hand; the hand
    ends normally and only then is he removed, his stack cashed out to his wallet."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        await _ann_bets(t)
        player, legal, token = t.to_act()
        assert player == "bob" and "fold" in legal
        timer = t.runtime.turn_timer
        out = await t.say("ann", "kick bob")
        assert "[table] bob is removed from the table after this hand." in out
        assert "[dm bob] You will be removed from the table after this hand." in out
        assert "[dm ann] They play this hand out as usual" in out
        assert "bob folds" not in out and not t.runtime.hand.is_over
        assert t.to_act() == (player, legal, token)  # still his turn, with the same choices
        assert t.runtime.turn_timer is timer and t.runtime.deadline is not None  # and the same timer
        assert (await t.say("ann", "kick bob")).count("[table]") == 0  # a second kick: nothing new
        assert "ran out of time" not in await t.wait(59)
        assert "bob calls" in await t.say("bob", "call")  # his own choice
        await t.call_down()
        hand = t.runtime.hand
        assert hand is not None and hand.is_over
        final = hand.stacks[t.runtime.engine_seat("bob")]
        assert "bob" not in [s.name for s in t.runtime.table.seats.values()]
        assert await t.store.wallet("console:local", "bob") == (900 + final, None)
        assert await _kick_transfers(t, "bob") == ([final] if final else [])
        assert any(f"bob is removed from the table with {final} chips" in line for line in t.out) or not final
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok
        assert "Hand #2" not in await t.wait(10)  # ann alone: no next hand


@pytest.mark.asyncio
async def test_item3_kick_of_a_player_who_folded_or_left_waits_for_the_hand_too(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        await t.start()
        await _ann_bets(t)
        player, _legal, _ = t.to_act()
        await t.say(player, "fold")
        folded = player
        assert "Their chips go back to their wallet when the hand ends." in await t.say("ann", f"kick {folded}")
        assert folded in [s.name for s in t.runtime.table.seats.values()]
        await t.call_down()
        final = t.runtime.hand.stacks[t.runtime.engine_seat(folded)]
        assert folded not in [s.name for s in t.runtime.table.seats.values()]
        assert await t.store.wallet("console:local", folded) == (900 + final, None)
        assert await _kick_transfers(t, folded) == [final]
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_item3_stop_during_hand_closes_the_table_after_it(tmp_path: Path) -> None:
    """Issue 19 item 3: a stop used to void the hand in progress (one its owner was losing). Now
    the hand plays out; its settlement closes the table and gives every stack back."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        await t.say("cat", "sitout")  # seated, not dealt in: cashed out by the close too
        await t.start()
        await _ann_bets(t)
        player, legal, token = t.to_act()
        assert "creator or an admin" in await t.say("bob", "stop")
        out = await t.say("ann", "stop")
        assert "[table] The table closes after this hand" in out and "called off" not in out
        assert "[dm ann] The table closes when this hand ends." in out
        assert (await t.say("ann", "stop")).count("[table]") == 0  # a second stop: nothing new
        assert t.to_act() == (player, legal, token) and not t.runtime.hand.is_over
        assert "closes after this hand" in await t.say("dan", "join")
        assert "closes after this hand" in await t.say("ann", "addbot")
        await t.say(player, "call")
        rt = t.runtime
        await t.call_down(rt)
        assert rt.hand is not None and rt.hand.is_over and rt.closed
        assert "[table] The table is closed and every stack is back in its wallet." in t.out
        assert "console:main" not in t.bot.tables
        assert "There is no table" in await t.say("ann", "board")
        hands = await t.store.fetch("SELECT status FROM hands")
        assert [h["status"] for h in hands] == ["done"]  # played out, not voided
        wallets = [(await t.store.wallet("console:local", u)) for u in ("ann", "bob", "cat")]
        assert sum(w[0] for w in wallets if w is not None) == 3000 and wallets[2] == (1000, None)
        assert not await t.store.fetch("SELECT 1 FROM seats")
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok
        assert "Hand #2" not in await t.wait(10)


@pytest.mark.asyncio
async def test_item3_a_pending_stop_is_final(tmp_path: Path) -> None:
    """A stop waits for the hand, but is not undone meanwhile: 'start' is refused (as every command
    that would add to the table) and the table closes when the hand ends."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        await t.say("ann", "stop")
        for user in ("ann", "bob"):
            assert "The table closes after this hand; once it has, 'new' opens another." in await t.say(user, "start")
        assert t.runtime.table.closing
        rt = t.runtime
        await t.call_down(rt)
        assert rt.closed and "Hand #2" not in await t.wait(5)
        assert "opens a Seven Card Stud Hi-Lo table" in await t.say("ann", "new")  # another table, at once


@pytest.mark.asyncio
async def test_item3_pending_kick_and_stop_survive_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    async with Table(tmp_path / "t.db", clock=clock) as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        await t.start()
        await _ann_bets(t)
        await t.say("ann", "kick bob")
        await t.say("ann", "stop")
        to_act = t.to_act()[:2]
    async with Table(tmp_path / "t.db", clock=clock) as t:  # a new process on the same database
        bob = t.runtime.table.seat_named("bob")
        assert bob is not None and bob.kicked and t.runtime.table.closing
        assert t.to_act()[:2] == to_act
        rt = t.runtime
        await t.call_down(rt)
        assert rt.closed and "console:main" not in t.bot.tables
        assert await _kick_transfers(t, "bob") or await t.store.wallet("console:local", "bob") == (900, None)
        assert not await t.store.fetch("SELECT 1 FROM seats") and (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_turn_timer_checks_or_folds_then_sits_out(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        slow, legal, _ = t.to_act()
        out = await t.wait(59)
        assert "ran out of time" not in out
        out = await t.wait(1)
        assert f"{slow} ran out of time" in out and f"{slow} folds" in out  # facing the bring-in
        assert "Hand #2" in await t.wait(5)
        for _ in range(10):
            player, legal, _ = t.to_act()
            if player == slow and "check" in legal:
                break
            if player == slow:
                await t.wait(60)
                break
            await t.say(player, "bring-in" if "bring-in" in legal else "call")
        seat = t.runtime.table.seat_of(slow)
        assert seat is not None and (seat.timeouts >= 1 or seat.sitting_out)


@pytest.mark.asyncio
async def test_each_action_moves_the_deadline_and_a_shorter_timer_takes_effect_at_once(tmp_path: Path) -> None:
    """The turn timer is set lazily (bot/table/timers.py, TurnTimer): the timeouts still come exactly at the
    last action's time plus the table's timer, later or earlier than the clock timer already set."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()  # the bring-in's deadline: 60 s from now
        assert "ran out of time" not in await t.wait(30)
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")  # 30 s in: the next player's deadline is 90 s
        slow, _, _ = t.to_act()
        assert "ran out of time" not in await t.wait(59)  # past the first deadline (60 s)
        assert f"{slow} ran out of time" in await t.wait(1)
        assert "Hand #2" in await t.wait(5)
        await t.say("ann", "config timer=10")  # the stakes wait for the next hand; the timer does not
        assert "ran out of time" not in await t.wait(20)  # the bring-in's deadline was set with 60 s
        player, legal, _ = t.to_act()
        await t.say(player, "bring-in" if "bring-in" in legal else "call")
        slow, _, _ = t.to_act()
        assert "ran out of time" not in await t.wait(9)  # 10 s now, before the timer set for the deadline of 60
        assert f"{slow} ran out of time" in await t.wait(1)


@pytest.mark.asyncio
async def test_restart_mid_hand_resumes_with_the_timer(tmp_path: Path) -> None:
    clock = ManualClock()
    async with Table(tmp_path / "t.db", clock=clock) as t:
        await _two_players(t)
        await t.start()
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        actions = list(t.runtime.hand.actions)
        total = await chip_wallets.chip_total(t.store)
        await t.wait(20)
    async with Table(tmp_path / "t.db", clock=clock) as t:  # a new process on the same database
        assert t.runtime.hand is not None and list(t.runtime.hand.actions) == actions
        assert await chip_wallets.chip_total(t.store) == total
        assert t.to_act()[0] != player  # the restored board asks the next player
        out = await t.wait(39)
        assert "ran out of time" not in out
        assert "ran out of time" in await t.wait(1)  # 60 s in all, across the restart


@pytest.mark.asyncio
async def test_unreachable_player_gets_cards_on_request(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", unreachable={"bob"}) as t:
        await t.say("ann", "new")
        await t.say("ann", "join")
        out = await t.say("bob", "join")
        assert "I cannot message bob privately" in out
        assert "[dm bob] Seated with 200 chips. I cannot send you private messages" in out  # told privately
        out = await t.start()
        assert "[dm bob]" not in out
        cards = await t.say("bob", "cards")
        assert cards.startswith("[dm bob] Hand #1, your cards: [")


@pytest.mark.asyncio
async def test_house_bots_play_hands_by_themselves(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        for _ in range(3):
            await t.say("ann", "addbot")
        total = await chip_wallets.chip_total(t.store)
        await t.start()
        for _ in range(10):
            await t.wait(5)
        assert t.runtime.table.hand_no >= 5
        assert await chip_wallets.chip_total(t.store) == total
        assert "is seated" in await t.say("ann", "addbot Robo")
        assert "Robo" in [s.name for s in t.runtime.table.seats.values()]


@pytest.mark.asyncio
async def test_config_and_kick_by_the_creator(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        out = await t.say("ann", "config ante=2 bring_in=3 small=6 big=12 timer=30")
        assert "Table set to ante 2, bring-in 3, bets 6/12, timer 30s." in out
        await t.start()
        assert t.runtime.hand is not None and t.runtime.hand.stakes.big_bet == 12
        assert "from the next hand" in await t.say("ann", "config timer=45")
        assert "bob is removed from the table after this hand" in await t.say("ann", "kick bob")


@pytest.mark.asyncio
async def test_config_view_is_a_word_and_is_kept(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        assert t.runtime.table.view == "image"  # the default of a new table
        refused = await t.say("ann", "config view=fancy")
        assert "view is image or text, not 'fancy'" in refused and "usage: config" in refused
        assert "view=image|text" in refused and t.runtime.table.view == "image"
        assert "not a whole number" in await t.say("ann", "config timer=soon")
        assert "creator or an admin" in await t.say("bob", "config view=text")
        out = await t.say("ann", "config view=text")
        assert "The board is shown as text now." in out and "Done." in out
        assert "Table set to" not in out  # only the view changed
        out = await t.say("ann", "config VIEW=Image timer=40")
        assert "shown as an image" in out and "timer 40s" in out
        await t.say("ann", "config view=text")
        rows = await t.store.fetch("SELECT view FROM tables")
        assert [r["view"] for r in rows] == ["text"]
        await t.start()  # the console shows text whatever the view
        assert t.to_act()
    async with Table(tmp_path / "t.db") as t:  # kept across a restart
        assert t.runtime.table.view == "text"


@pytest.mark.asyncio
async def test_a_board_image_that_cannot_be_drawn_falls_back_to_text(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    from bot.text import images

    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        boards: list[BoardView] = _spy(monkeypatch, t.messenger, "publish_board", lambda kw: kw["board"])
        t.runtime.table.platform = "chat"  # a platform that shows images (the console never gets one)
        await t.say("ann", "board")
        assert boards[-1].image is not None and boards[-1].image.startswith(b"\x89PNG")

        def broken(*args: object, **kw: object) -> bytes:
            raise RuntimeError("no pictures today")

        monkeypatch.setattr(images, "board_png", broken)
        await t.start()
        assert boards[-1].image is None and "to act" in boards[-1].text  # the text board, the hand goes on
        assert "drawing the board failed" in caplog.text
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        assert t.runtime.hand is not None and len(t.runtime.hand.actions) == 1


async def _lose_elsewhere(store: Store, user: str, chips: int) -> None:
    """The user's wallet pays ``chips`` to the house (say, lost at another table), ledger and all."""
    async with store.atomic() as tx:
        await chip_wallets.move_wallet(tx, community="console:local", user=user, delta=-chips)
        await chip_wallets.post(tx, [Transfer("test", wallet_account("console:local", user), HOUSE, chips)], now=0.0)


@pytest.mark.asyncio
async def test_broke_wallet_refills_once_a_day(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        await t.say("ann", "join 1000")  # the whole wallet at the table
        await t.say("ann", "leave")
        await _lose_elsewhere(t.store, "ann", 1000)
        assert "ann sits down with 200 chips" in await t.say("ann", "join")  # refilled to 1000
        wallet = await t.store.wallet("console:local", "ann")
        assert wallet is not None and wallet[0] == 800 and wallet[1] is not None
        await t.say("ann", "leave")
        await _lose_elsewhere(t.store, "ann", 1000)
        assert "refills once a day" in await t.say("ann", "join")  # not twice the same day
        await t.wait(24 * 3600)
        assert "ann sits down" in await t.say("ann", "join")


@pytest.mark.asyncio
async def test_redteam_a_broke_player_who_registers_for_a_sit_and_go_is_refilled_as_by_join(tmp_path: Path) -> None:
    """Broke (no chips anywhere) and not refilled today: 'register' refills the wallet as 'join' does,
    once a day; it used to say 'your wallet has 0 chips' where 'join' would have refilled it."""
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "tourney new seats=3 buyin=100")
        await t.say("ann", "register")
        await t.say("ann", "unregister")
        await _lose_elsewhere(t.store, "ann", 1000)
        assert "You are registered" in await t.say("ann", "register")
        wallet = await t.store.wallet("console:local", "ann")
        assert wallet is not None and wallet[0] == 900 and wallet[1] is not None
        await t.say("ann", "unregister")
        await _lose_elsewhere(t.store, "ann", 1000)
        assert "your wallet has 0 chips" in await t.say("ann", "register")  # not twice the same day
        await t.wait(24 * 3600)
        assert "You are registered" in await t.say("ann", "register")
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.sqlite_only(reason="PRAGMA user_version and the WAL journal of the file (both backends: "
                                 "test_store_backends.py)")
@pytest.mark.asyncio
async def test_schema_is_versioned_and_reopens(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    rows = await store.fetch("PRAGMA user_version")
    assert rows[0][0] == store.schema_version == len(MIGRATIONS)
    assert (await store.fetch("PRAGMA journal_mode"))[0][0] == "wal"
    await store.close()
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)  # migrations run once
    assert (await store.fetch("PRAGMA user_version"))[0][0] == len(MIGRATIONS)
    await store.close()


@pytest.mark.asyncio
async def test_a_version_1_database_is_migrated_with_its_hand_in_progress(tmp_path: Path,
                                                                          store_backend: Backend) -> None:
    import aiosqlite

    db = tmp_path / "old.db"
    clock = ManualClock()
    if not store_backend.postgresql:  # a file the old build made
        async with aiosqlite.connect(db) as con:
            await con.execute("PRAGMA journal_mode=WAL")
    old = await open_sqlite(str(db), schema=MIGRATIONS[:1])  # an old build: schema version 1
    await old.close()
    async with Table(db, clock=clock) as t:  # the new build migrates it and plays on
        assert len(await t.store.fetch("SELECT * FROM hand_players")) == 0  # the last migration's table
        await _two_players(t)
        await t.start()
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
    async with Table(db, clock=clock) as t:
        assert t.runtime.hand is not None and len(t.runtime.hand.actions) == 1
        assert t.runtime.table.view == "image"  # the column the migration added, with its default


@pytest.mark.asyncio
async def test_a_player_who_becomes_reachable_gets_cards_again(tmp_path: Path) -> None:
    closed = {"bob"}
    async with Table(tmp_path / "t.db", unreachable=closed) as t:
        await _two_players(t)
        await t.start()
        assert not any(line.startswith("[dm bob] Hand #1") for line in t.out)
        closed.clear()
        assert await t.bot.mark_reachable(platform="console", user="bob") == 1
        assert any(line.startswith("[dm bob] Hand #1, your cards:") for line in t.out)
        assert await t.bot.mark_reachable(platform="console", user="bob") == 0


@pytest.mark.asyncio
async def test_two_news_at_once_open_one_table(tmp_path: Path) -> None:
    import asyncio

    async with Table(tmp_path / "t.db") as t:
        replies = await asyncio.gather(*(t.bot.handle(t.chat.inbound(u, "new")) for u in ("ann", "bob", "cat")))
        assert sum(r.ok for r in replies) == 1
        assert sum("already has a table" in r.text for r in replies) == 2


@pytest.mark.asyncio
async def test_a_failing_messenger_does_not_stall_the_table(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)

        async def broken(*, platform: str, user: str, text: str) -> bool:
            raise RuntimeError("the platform fell over")

        t.messenger.send_private = broken  # type: ignore[method-assign]
        await t.start()
        assert t.runtime.hand is not None and t.runtime.turn_timer is not None  # the turn is armed
        assert "ran out of time" in await t.wait(60)  # and its timer fires
        assert "[dm ann] Hand #1, your cards:" in await t.say("ann", "cards")  # cards on request still work


@pytest.mark.asyncio
async def test_kick_a_name_with_spaces(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        await t.bot.handle(replace(t.chat.inbound("u2", "join"), name="Mary Jane"))
        assert "Mary Jane leaves" not in "\n".join(t.out)
        assert "Mary Jane is removed from the table" in await t.say("ann", "kick mary jane")


@pytest.mark.asyncio
async def test_help_for_an_unknown_command_is_usage_not_an_apology(tmp_path: Path) -> None:
    # Found by tests/app/test_robustness.py: 'help 0' used to end in "Sorry, something went wrong".
    async with Table(tmp_path / "t.db") as t:
        assert "no command '0'. Try: help" in await t.say("ann", "HELP 0")


@pytest.mark.asyncio
async def test_cards_go_as_a_picture_on_image_tables_and_as_text_when_it_cannot_be_drawn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from bot.text import images

    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        sent: list[tuple[str, str, bytes | None]] = _spy(monkeypatch, t.messenger, "send_private",
                                                         lambda kw: (kw["user"], kw["text"], kw.get("image")))
        t.runtime.table.platform = "chat"  # a platform that shows images (the console never gets one)
        await t.start()
        hand = t.runtime.hand
        assert {user for user, _, _ in sent} == {"ann", "bob"}
        for user, text, image in sent:
            es = t.runtime.engine_seat(user)
            assert "your cards" in text and image == images.private_png(hand, es)  # the player's own cards
        t.runtime.table.view = "text"
        sent.clear()
        await t.call_down()
        assert sent and all(image is None for _, _, image in sent)  # a text table: text only
        t.runtime.table.view = "image"

        def broken(*args: object, **kw: object) -> bytes:
            raise RuntimeError("no pictures today")

        monkeypatch.setattr(images, "private_png", broken)
        sent.clear()
        await t.wait(10)  # the next hand
        assert sent and all(image is None and "your cards" in text for _, text, image in sent)
        assert "drawing the cards of seat" in caplog.text


@pytest.mark.asyncio
async def test_after_a_showdown_the_board_picture_is_the_showdown(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.core.i18n import EN
    from bot.text import images

    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        boards: list[BoardView] = _spy(monkeypatch, t.messenger, "publish_board", lambda kw: kw["board"])
        t.runtime.table.platform = "chat"  # a platform that shows images
        await t.start()
        hand = t.runtime.hand
        assert boards[-1].image == images.board_png(t.runtime.table, hand, names=t.runtime.names)
        await t.call_down()
        assert hand.is_over and len(hand.live_seats) == 2
        final = boards[-1]
        assert final.final and final.image == images.showdown_png(hand, names=t.runtime.names, tr=EN)


@pytest.mark.parametrize("env", [{"STUDBOT_TURN_TIMER": "soon"}, {"STUDBOT_DB": "{tmp}/file/t.db"}])
def test_redteam_the_console_with_a_wrong_setting_or_database_says_one_line(tmp_path: Path,
                                                                           env: dict[str, str]) -> None:
    """``python -m adapters.console`` (and ``studbot`` with no token) printed a traceback for a wrong
    setting (the ConfigError) or a database it cannot open (sqlite3's OperationalError)."""
    (tmp_path / "file").write_text("not a directory")
    full = {k: v for k, v in os.environ.items()
            if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "STUDBOT_DATABASE_URL", "STUDBOT_DB")}
    full.update({"PYTHONPATH": str(Path(__file__).resolve().parents[2]),
                 **{k: v.format(tmp=tmp_path) for k, v in env.items()}})
    for argv in (["-m", "adapters.console", "--script"], ["-m", "adapters.run", "--script"]):
        done = subprocess.run([sys.executable, *argv], cwd=tmp_path, env=full, input="ann: new\n",
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode != 0 and "Traceback" not in done.stderr, (argv, done.stderr)
        assert done.stderr.strip().splitlines()[-1].startswith("studbot: "), (argv, done.stderr)
