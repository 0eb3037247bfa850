"""Two StudBot instances on one database (cluster mode): the same hands as one process plays them.

The single-process run of a seeded table gives the commands of a few hands (every press with its
turn token). Two instances (``w1``, ``w2``, each with its own Store on the one database file) are
then fed exactly those commands, alternately, and then each command sent to both at once. Every
stored hand file is the single process's, byte for byte (so it replays to the same result); the
actions are those of the single process, none lost or doubled; the chip audit passes. A lease taken
over after its holder stops renewing: the old holder's timer fires too, and its write is refused
by the fence, in its transaction.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable

import pytest
from cluster_helpers import (
    KEY,
    SETTINGS,
    START,
    Instance,
    Opener,
    Step,
    Stored,
    close,
    feed,
    msg,
    open_instance,
    reference_run,
    stored,
)
from old_builds import before_schema_14
from store_fixtures import Opener as SchemaOpener
from store_fixtures import opener

from bot.bootstrap import AUDIT_CHECKS
from bot.chips import wallets
from bot.chips.audit import audit
from bot.cluster import leases
from bot.core.clock import ManualClock
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite
from engine import HandFile, replay_hand, result_of

HANDS = 6


async def pair(opener: Opener) -> tuple[ManualClock, Instance, Instance]:
    """Two instances, w1 and w2, on the database ``opener`` opens, on one manual clock."""
    clock = ManualClock(start=START)
    return clock, await open_instance(opener, clock=clock, instance="w1"), \
        await open_instance(opener, clock=clock, instance="w2")


def die(inst: Instance) -> None:
    """As kill -9 leaves it: no more renewals, inbox or timers, and nothing released."""
    assert inst.bot.cluster is not None
    inst.bot.cluster.halt()
    inst.bot.stopping = True


async def heads_up(inst: Instance, clock: ManualClock) -> None:
    """ann and bob at a table of ``inst``'s, the first hand dealt."""
    for user, text in (("ann", "new"), ("ann", "join 300"), ("bob", "join 300"), ("ann", "start")):
        assert (await inst.bot.handle(msg(user, text))).ok
        await clock.settle()
    await clock.advance(SETTINGS.next_hand_delay)  # the deal, after the table's pause


__all__ = ["opener"]  # the fixture (SQLite, then PostgreSQL), used by name


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Step], Stored]:
    """The single process's run (on SQLite), once for the module."""
    path = str(tmp_path_factory.mktemp("ref") / "ref.db")
    return asyncio.run(reference_run(lambda: open_sqlite(path, schema=MIGRATIONS), hands=HANDS))


@pytest.mark.asyncio
@pytest.mark.parametrize("both", [False, True], ids=["alternately", "same-press-to-both"])
async def test_two_instances_play_the_hands_one_process_plays(
        opener: Opener, reference: tuple[list[Step], Stored], both: bool) -> None:
    steps, (ref_hands, ref_actions) = reference
    clock, a, b = await pair(opener)
    accepted = await feed(steps, a, b, clock=clock, both=both)
    holder = a if KEY in a.bot.tables else b
    other = b if holder is a else a
    assert KEY not in other.bot.tables  # one holder: the other forwarded
    report = await audit(holder.store, checks=AUDIT_CHECKS, replay=True)
    assert report.ok, report.summary()
    hands, actions = await stored(holder.store)
    backend = holder.store.dialect
    await close(a, b)

    assert len(ref_hands) >= HANDS and [h[:2] for h in hands] == [h[:2] for h in ref_hands]
    assert hands == ref_hands  # every hand file the single process's, byte for byte
    assert actions == ref_actions  # no action lost or doubled, in the same order
    for _, status, text in hands:
        if status == "done":
            result = result_of(replay_hand(HandFile.from_json(text)))
            assert sum(result["stacks"].values()) == sum(p["stack"] for p in json.loads(text)["players"])
    presses = sum(1 for user, _ in steps if user is not None)
    print(f"\n{backend}, {'both at once' if both else 'alternately'}: {presses} commands, {len(accepted)} "
          f"accepted once, {len(actions)} actions in {len(hands)} hands, identical to the single process's")


@pytest.mark.asyncio
async def test_a_stalled_holder_is_fenced_out_and_the_turn_times_out_once(opener: Opener) -> None:
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    rt = a.bot.tables[KEY]
    assert rt.hand is not None and rt.deadline is not None and KEY not in b.bot.tables
    turn, deadline = rt.turn, rt.deadline
    actions_before = len(rt.hand.actions)

    assert a.bot.cluster is not None
    a.bot.cluster.stop_taking()  # w1 stalls: no renewals; its turn timer still armed
    # w2's sweep (every third of the lease) finds the lease expired and takes the table
    await clock.advance(SETTINGS.lease_seconds * 4 / 3 + 0.1)
    assert KEY in b.bot.tables and b.bot.tables[KEY].turn == turn
    assert b.bot.tables[KEY].deadline == deadline  # the timer re-armed at the stored deadline
    await clock.advance(deadline - clock.now() + 0.01)  # both timers fire: w1's write is refused
    assert KEY not in a.bot.tables, "the stale holder kept the table"
    rows = await b.store.fetch("SELECT seq, by_timeout FROM actions ORDER BY seq")
    assert [(r["seq"], r["by_timeout"]) for r in rows][actions_before:] == [(actions_before, 1)]
    lease = await b.store.fetch("SELECT owner, epoch FROM table_leases")
    assert [(r["owner"], r["epoch"]) for r in lease] == [("w2", 2)]
    # The stale holder forwards now: a command sent to it is played at w2.
    hand = b.bot.tables[KEY].hand
    assert hand is not None and hand.actor is not None
    user = b.bot.tables[KEY].setup.players[hand.actor].user  # type: ignore[union-attr]
    reply = await a.bot.handle(msg(user, f"{hand.default_action().value} @{b.bot.tables[KEY].turn}"))
    assert reply.ok, reply
    assert len(b.bot.tables[KEY].hand.actions) == actions_before + 2  # type: ignore[union-attr]
    report = await audit(b.store, checks=AUDIT_CHECKS)
    assert report.ok, report.summary()
    await close(a, b)


@pytest.mark.asyncio
async def test_a_restarted_instance_takes_its_own_tables_back_at_once(opener: Opener) -> None:
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    turn = a.bot.tables[KEY].turn
    die(a)  # kill -9: nothing released
    a.bot.deliveries.abandon()
    await a.store.close()
    again = await open_instance(opener, clock=clock, instance="w1")  # no wait: its own lease, taken back
    assert KEY in again.bot.tables and again.bot.tables[KEY].turn == turn and KEY not in b.bot.tables
    rows = await again.store.fetch("SELECT owner, epoch FROM table_leases")
    assert [(r["owner"], r["epoch"]) for r in rows] == [("w1", 2)]
    await close(again, b)


@pytest.mark.asyncio
async def test_a_conflicting_action_is_a_stale_turn_and_a_reload_never_a_crash(opener: Opener) -> None:
    clock = ManualClock(start=START)
    a = await open_instance(opener, clock=clock, instance="w1")
    await heads_up(a, clock)
    rt = a.bot.tables[KEY]
    assert rt.hand is not None and rt.hand.actor is not None and rt.setup is not None and rt.hand_id is not None
    seq, user = len(rt.hand.actions), rt.setup.players[rt.hand.actor].user
    action = rt.hand.default_action().value
    # A row for this turn that this process did not write (what the key stops if fencing ever failed).
    async with a.store.atomic() as tx:
        await tx.add_action(hand_id=rt.hand_id, seq=seq, action=action, seat_no=rt.seat_no(rt.hand.actor),
                            by_timeout=False, now=clock.now(), deadline=clock.now() + 60)
    reply = await a.bot.handle(msg(user, f"{action} @{rt.turn}"))
    assert not reply.ok and reply.code == "stale", reply
    assert rt.moved and KEY not in a.bot.tables  # dropped; the next command reloads it from the database
    reply = await a.bot.handle(msg(user, "board"))
    assert reply.ok
    reloaded = a.bot.tables[KEY]
    assert reloaded.hand is not None and len(reloaded.hand.actions) == seq + 1
    await close(a)


@pytest.mark.asyncio
async def test_leases_sql(opener: Opener) -> None:
    """The lease statements themselves: taking is refused while a live process holds it."""
    clock = ManualClock(start=START)
    a = await open_instance(opener, clock=clock, instance="w1")
    assert (await a.bot.handle(msg("ann", "new"))).ok
    store = a.store
    assert await leases.take(store, table_id=1, owner="w2", now=START, expires_at=START + 6) is None
    assert await leases.take(store, table_id=1, owner="w2", now=START + 7, expires_at=START + 13) == 2
    assert await leases.renew(store, owner="w1", now=START + 7, expires_at=START + 20) == {}
    assert await leases.renew(store, owner="w2", now=START + 7, expires_at=START + 20) == {1: 2}
    assert await leases.renew(store, owner="w2", now=START + 21, expires_at=START + 30) == {}  # let expire: gone
    await close(a)


@pytest.mark.asyncio
async def test_a_sit_and_go_goes_on_at_the_instance_that_takes_its_table_over(opener: Opener) -> None:
    """A tournament is played at one table: its holder has it all (the tournament's rows come with
    the table when another instance takes it). Registrations forwarded from the other instance; the
    holder stalls mid-tournament; the other takes the table over and plays it to its prizes."""
    clock, a, b = await pair(opener)
    reply = await a.bot.handle(msg("ann", "tourney new seats=3 pace=turbo stack=200 buyin=100 levels=hands:2"))
    assert reply.ok, reply
    for n, name in enumerate(("Robo", "Dora", "Max")):  # the third fills it: the first hand is dealt
        assert (await (b if n % 2 == 0 else a).bot.handle(msg("ann", f"addbot {name}"))).ok
    assert KEY in a.bot.tables and KEY not in b.bot.tables
    for _ in range(40):  # a few hands at w1
        await clock.advance(1)
    hands_at_a = a.bot.tables[KEY].table.hand_no
    assert hands_at_a >= 2
    die(a)  # w1 stops renewing (and acting: a crash)
    for _ in range(2000):  # w2 takes the table over and plays the tournament to its end
        await clock.advance(1)
        rows = await b.store.fetch("SELECT status FROM tournaments")
        if rows[0]["status"] == "finished":
            break
    assert rows[0]["status"] == "finished", rows
    prizes = await b.store.fetch("SELECT SUM(prize) AS paid FROM tourney_players")
    assert int(prizes[0]["paid"]) == 300
    played = await b.store.fetch("SELECT COUNT(*) AS n FROM hands WHERE status = 'done'")
    assert int(played[0]["n"]) > hands_at_a
    report = await audit(b.store, checks=AUDIT_CHECKS, replay=True)
    assert report.ok, report.summary()
    lease = await b.store.fetch("SELECT owner FROM table_leases")
    assert [r["owner"] for r in lease] == ["w2"]
    await close(a, b)


@pytest.mark.asyncio
async def test_a_command_forwarded_to_a_holder_that_dies_is_played_where_the_table_goes(opener: Opener) -> None:
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    rt = a.bot.tables[KEY]
    assert rt.hand is not None and rt.hand.actor is not None and rt.setup is not None
    user, turn, seq = rt.setup.players[rt.hand.actor].user, rt.turn, len(rt.hand.actions)
    action = next(a.value for a in rt.hand.legal_actions() if a.value != "fold")
    die(a)  # w1 dies holding the table: nobody answers its inbox
    press = asyncio.create_task(b.bot.handle(msg(user, f"{action} @{turn}")))
    await asyncio.sleep(0.2)  # nothing is to happen: nobody answers the inbox
    assert not press.done()  # waiting in the inbox
    await clock.advance(SETTINGS.lease_seconds * 4 / 3 + 0.1)  # w2 takes the table over, and the command
    reply = await asyncio.wait_for(press, 10)
    assert reply.ok, reply
    assert KEY in b.bot.tables
    hand = b.bot.tables[KEY].hand
    assert hand is not None and len(hand.actions) >= seq + 1 and hand.actions[seq].value == action
    rows = await b.store.fetch("SELECT COUNT(*) AS n FROM inbox")
    assert int(rows[0]["n"]) == 0  # answered and collected
    await close(a, b)


@pytest.mark.asyncio
async def test_a_version_9_database_with_a_hand_in_progress_migrates_and_plays_on_in_cluster_mode(
        opener: SchemaOpener, monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema before the leases, a hand in progress: two instances open it (migration 10 runs
    once), one of them takes the table, and the hand goes on from where it was."""
    before_schema_14(monkeypatch)  # the seats and tables of the build of version 9
    clock = ManualClock(start=START)
    old = await open_instance(lambda: opener(schema=MIGRATIONS[:9]), clock=clock, instance=None)
    assert old.store.schema_version == 9
    await heads_up(old, clock)
    rt = old.bot.tables[KEY]
    assert rt.hand is not None and rt.setup is not None and rt.hand.actor is not None
    action = next(a.value for a in rt.hand.legal_actions() if a.value != "fold")
    assert (await old.bot.handle(msg(rt.setup.players[rt.hand.actor].user, f"{action} @{rt.turn}"))).ok
    turn, chips = rt.turn, await wallets.chip_total(old.store)
    await close(old)
    monkeypatch.undo()
    a, b = await asyncio.gather(open_instance(opener, clock=clock, instance="w1"),
                                open_instance(opener, clock=clock, instance="w2"))
    assert a.store.schema_version == b.store.schema_version == len(MIGRATIONS)  # the latest
    holder = a if KEY in a.bot.tables else b
    assert KEY not in (b if holder is a else a).bot.tables  # one of them took it
    assert holder.bot.tables[KEY].turn == turn
    hand = holder.bot.tables[KEY].hand
    assert hand is not None and hand.actor is not None
    user = holder.bot.tables[KEY].setup.players[hand.actor].user  # type: ignore[union-attr]
    other = b if holder is a else a
    assert (await other.bot.handle(msg(user, f"{hand.default_action().value} @{turn}"))).ok  # forwarded
    assert await wallets.chip_total(holder.store) == chips
    report = await audit(holder.store, checks=AUDIT_CHECKS)
    assert report.ok, report.summary()
    await close(a, b)


@pytest.mark.asyncio
async def test_a_language_chosen_at_one_instance_reaches_the_holder(opener: Opener) -> None:
    """'lang' is answered wherever it arrives; the holder (which sends the player's cards later)
    learns it from the notification (PostgreSQL) or with the player's next forwarded command."""
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    assert (await b.bot.handle(msg("bob", "lang ru"))).ok
    assert (await b.bot.handle(msg("bob", "cards"))).ok  # forwarded to w1
    assert a.bot.languages[("console", "bob")] == ("ru", True)
    assert a.bot.translator_for(platform="console", user="bob").lang == "ru"
    await close(a, b)


@pytest.mark.asyncio
async def test_a_user_reachable_again_at_one_instance_is_told_at_the_holder(pg_database: str) -> None:
    """PostgreSQL: the private chat opened at w2 clears the flag on the seat w1 holds (and w1 sends
    the cards of the hand in progress)."""
    from adapters.console.chat import ConsoleMessenger
    from bot.store.postgres import PostgresStore

    def opener() -> Awaitable[Store]:
        return PostgresStore.connect(pg_database, schema=MIGRATIONS, pool_size=2)

    clock, a, b = await pair(opener)
    assert isinstance(a.bot.messenger, ConsoleMessenger)
    a.bot.messenger.unreachable.add("bob")  # bob has not opened the private chat yet
    await heads_up(a, clock)
    seat = a.bot.tables[KEY].table.seat_of("bob")
    assert seat is not None and seat.unreachable
    a.bot.messenger.unreachable.discard("bob")
    assert await b.bot.mark_reachable(platform="console", user="bob") == 0  # not at w2's tables
    for _ in range(200):  # the notification, then w1's write, then the cards
        rows = await a.store.fetch("SELECT unreachable FROM seats WHERE user_id = 'bob'")
        dms = [line for line in a.lines if line.startswith("[dm bob]")]
        if [r["unreachable"] for r in rows] == [0] and dms:
            break
        await asyncio.sleep(0.02)
    assert [r["unreachable"] for r in rows] == [0] and not seat.unreachable
    assert dms  # the cards, from the holder
    await close(a, b)


@pytest.mark.asyncio
async def test_item14_a_forwarded_command_taken_by_a_holder_that_dies_is_answered_when_the_sender_takes_the_table(
        opener: Opener, monkeypatch: pytest.MonkeyPatch) -> None:
    """The holder took the command and died before answering; the sender's own sweep takes the table over
    before its wait looks at the lease (which is then live again, and its own): answered within the
    lease, not after the 60 s a forwarded command may wait."""
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    rt = a.bot.tables[KEY]
    assert rt.hand is not None and rt.hand.actor is not None and rt.setup is not None
    user, turn = rt.setup.players[rt.hand.actor].user, rt.turn
    action = next(a.value for a in rt.hand.legal_actions() if a.value != "fold")
    assert a.bot.cluster is not None
    never = asyncio.Event()

    async def stuck(msg: object, *, forwarded: bool = False) -> None:
        await never.wait()  # taken, and never answered

    monkeypatch.setattr(a.bot.cluster, "_local", stuck)
    press = asyncio.create_task(b.bot.handle(msg(user, f"{action} @{turn}")))
    for _ in range(100):
        await asyncio.sleep(0.02)
        rows = await b.store.fetch("SELECT status FROM inbox")
        if rows and rows[0]["status"] == "taken":
            break
    assert [r["status"] for r in rows] == ["taken"]
    die(a)
    await clock.advance(SETTINGS.lease_seconds * 4 / 3 + 0.1)  # w2's sweep takes the table
    assert KEY in b.bot.tables
    reply = await asyncio.wait_for(press, 10)
    assert not reply.ok and reply.code == "moved_midway", reply
    await close(a, b)


@pytest.mark.asyncio
async def test_a_stop_that_begins_while_a_beat_takes_a_table_waits_for_it_and_adopts_nothing(
        opener: Opener, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen in CI: w1 stopped and released its table; w2's beat was taking it as w2's own stop began, adopted
    it, and read the store as it closed ('pool is closing'). Now the stop waits for the beat, and the beat,
    seeing the stop, adopts nothing: the lease goes back with the rest."""
    clock, a, b = await pair(opener)
    await heads_up(a, clock)
    assert b.bot.cluster is not None
    await close(a)  # released: w2's next beat takes the table over
    reloading, go_on = asyncio.Event(), asyncio.Event()
    reload = b.bot.reload

    async def slow_reload(table_id: int) -> None:
        reloading.set()
        await go_on.wait()
        await reload(table_id)

    monkeypatch.setattr(b.bot, "reload", slow_reload)
    beat = asyncio.create_task(b.bot.cluster._beat())
    await asyncio.wait_for(reloading.wait(), 5)
    stopping = asyncio.create_task(b.bot.close())  # the stop begins with the beat in the middle of a take
    await asyncio.sleep(0.05)
    assert not stopping.done()  # waits for the beat
    go_on.set()
    await asyncio.wait_for(stopping, 10)
    assert beat.done() and KEY not in b.bot.tables
    assert await leases.orphans(b.store, now=clock.now()) == [1]  # released: the next process takes it at once
    await b.store.close()
