"""Two Telegram webhook workers (processes) on one PostgreSQL database, one killed at an exact point.

Issue 19, item 14: a retried update must never be applied twice, and a dead worker's claim must not
hold a player's press for a minute. Each test opens a heads-up table at worker ``w1`` (which holds
it), kills a worker with SIGKILL at a named point of the code while it handles a typed action
(``/stud check`` or the like: no turn in it) and then sends Telegram's retry of that update to the
other worker (the lease is 2 s; before the fix such a retry waited 20 s for a 503, and was applied
again after 60 s):

- killed after the action was committed, before the update was marked done (the worker that holds
  the table, or the one that forwarded it there): the update is done already (its mark commits with
  the action), so the retry is answered at once and applied nowhere;
- the holder killed after committing a forwarded action, before answering: the forwarding worker
  answers that it was done (not "the table moved, send it again");
- killed after claiming the update, before applying it: the retry is applied within the lease
  (the dead worker's claim expires then), once.

Item 15: the holder killed right after posting the next hand's board (a new message), before
storing its reference: the new holder never edits the previous hand's message; it posts the board
anew, takes the buttons off the previous message, and a played turn's button on the orphaned one
is refused and taken off.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import FakeBotAPI, text_of
from telegram_harness import ANN, BOB, GROUP, buttons, turn_of
from telegram_harness import fake as fake  # the fixture
from webhook_cluster import LEASE, Db, Worker, command, delivered, post, press

pytestmark = pytest.mark.asyncio

TYPED = ("check", "call", "bring-in", "complete", "bet")


@contextlib.asynccontextmanager
async def cluster(fake: FakeBotAPI, dsn: str, tmp_path: Path, *,
                  kill_at: dict[str, str], next_hand_delay: int = 2) -> AsyncIterator[tuple[Worker, Worker, Db]]:
    """Workers w1 (it registers the webhook) and w2 behind one URL; ``kill_at``: a worker's kill point; the first
    deal comes ``next_hand_delay`` seconds after `start` (the commitment's pause)."""
    w1 = Worker(fake=fake, dsn=dsn, name="w1", url=None, register=True, log_dir=tmp_path, kill_at=kill_at.get("w1"),
                next_hand_delay=next_hand_delay)
    workers = [w1]
    try:
        await w1.listening()
        await fake.wait_for(lambda: fake.webhook is not None, timeout=30, what="setWebhook")
        w2 = Worker(fake=fake, dsn=dsn, name="w2", url=w1.hook, register=False, log_dir=tmp_path,
                    kill_at=kill_at.get("w2"), next_hand_delay=next_hand_delay)
        workers.append(w2)
        await w2.listening()
        db = await Db.connect(dsn)
        try:
            yield w1, w2, db
        finally:
            await db.close()
    finally:
        for w in workers:
            w.stop()


async def open_table(fake: FakeBotAPI, db: Db, at: Worker) -> tuple[int, str, str]:
    """Ann and Bob at a table opened through ``at`` (which holds it), the first hand dealt: who is to act,
    the turn and a typed action they may take."""
    for uid in (ANN, BOB):
        assert await delivered(fake, command(fake, uid, uid, "/start", to=at)) == 200
    for uid, text in ((ANN, "/stud new"), (ANN, "/stud join 300"), (BOB, "/stud join 300"), (ANN, "/stud start")):
        assert await delivered(fake, command(fake, GROUP, uid, text, to=at)) == 200
    turn = await wait_for(lambda: db.to_act(GROUP), what="the first hand")
    uid, token, legal = turn
    return uid, token, next(a for a in TYPED if a in legal)


async def wait_for(probe: Any, *, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def replies_to(fake: FakeBotAPI, update_id: int) -> list[str]:
    """What the bot said in the group in reply to the message of an update."""
    message_id = fake.pushed[update_id]["message"]["message_id"]
    return [str(c.params.get("text")) for c in fake.sent("sendMessage", chat_id=GROUP)
            if (c.params.get("reply_parameters") or {}).get("message_id") == message_id]


async def test_item14_a_typed_action_whose_worker_dies_before_marking_it_done_is_not_applied_again(
        fake: FakeBotAPI, pg_database: str, tmp_path: Path) -> None:
    async with cluster(fake, pg_database, tmp_path, kill_at={"w1": "webhook.applied"}) as (w1, w2, db):
        uid, token, action = await open_table(fake, db, w1)
        before = await db.actions(GROUP)
        w1.arm()
        update = command(fake, GROUP, uid, f"/stud {action}", to=w1)  # to the holder: applied there
        await w1.died()  # after the action was committed, before the update was marked done
        hand_no, seq = (int(x) for x in token.split("."))
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]
        assert await db.update_done(update), "the action was committed without its update's done mark"
        status, took = await post(fake, update, w2.hook)  # Telegram's retry, to the other worker
        assert status == 200 and took < 2 * LEASE, (status, took, w2.tail())
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]  # not applied again
        # the table goes on at w2 (its holder died): the next player's typed action is stored
        nxt = await wait_for(lambda: db.to_act(GROUP), what="the next turn")
        assert nxt[0] != uid or nxt[1] != token
        await delivered(fake, command(fake, GROUP, nxt[0], f"/stud {next(a for a in TYPED if a in nxt[2])}", to=w2))
        assert len(await db.actions(GROUP)) == len(before) + 2


async def test_item14_a_typed_action_whose_forwarding_worker_dies_after_the_holder_stored_it_is_not_applied_again(
        fake: FakeBotAPI, pg_database: str, tmp_path: Path) -> None:
    async with cluster(fake, pg_database, tmp_path, kill_at={"w2": "webhook.applied"}) as (w1, w2, db):
        uid, token, action = await open_table(fake, db, w1)
        before = await db.actions(GROUP)
        w2.arm()
        update = command(fake, GROUP, uid, f"/stud {action}", to=w2)  # forwarded to w1, which holds the table
        await w2.died()  # w1 stored it and answered; w2 died before marking the update done
        hand_no, seq = (int(x) for x in token.split("."))
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]
        assert await db.update_done(update), "the holder committed the action without its update's done mark"
        status, took = await post(fake, update, w1.hook)
        assert status == 200 and took < 2 * LEASE, (status, took, w1.tail())
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]


async def test_item14_a_forwarded_action_whose_holder_dies_before_answering_is_answered_as_done(
        fake: FakeBotAPI, pg_database: str, tmp_path: Path) -> None:
    async with cluster(fake, pg_database, tmp_path, kill_at={"w1": "inbox.applied"}) as (w1, w2, db):
        uid, token, action = await open_table(fake, db, w1)
        before = await db.actions(GROUP)
        w1.arm()
        update = command(fake, GROUP, uid, f"/stud {action}", to=w2)
        await w1.died()  # the holder stored the action, and died before answering w2
        assert await delivered(fake, update) == 200  # w2 finds the holder dead
        hand_no, seq = (int(x) for x in token.split("."))
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]
        assert replies_to(fake, update) == []  # not "the table moved; send it again": it was done
        assert await db.update_done(update)
        status, _ = await post(fake, update, w2.hook)
        assert status == 200 and await db.actions(GROUP) == [*before, (hand_no, seq, action)]


async def test_item14_a_dead_workers_claim_holds_the_retry_no_longer_than_the_lease(
        fake: FakeBotAPI, pg_database: str, tmp_path: Path) -> None:
    async with cluster(fake, pg_database, tmp_path, kill_at={"w1": "webhook.claimed"}) as (w1, w2, db):
        uid, token, action = await open_table(fake, db, w1)
        before = await db.actions(GROUP)
        w1.arm()
        update = command(fake, GROUP, uid, f"/stud {action}", to=w1)
        await w1.died()  # claimed, not applied
        assert await db.actions(GROUP) == before and await db.update_done(update) is False
        status, took = await post(fake, update, w2.hook)  # the retry: served once the claim and lease expire
        assert status == 200 and took < 4 * LEASE + 2, (status, took, w2.tail())
        hand_no, seq = (int(x) for x in token.split("."))
        assert await db.actions(GROUP) == [*before, (hand_no, seq, action)]
        assert await db.update_done(update)


async def play_hand_out(fake: FakeBotAPI, db: Db, at: Worker) -> None:
    """Whoever is to act types a check or a call (never a fold), until the hand in progress is over."""
    first = await db.to_act(GROUP)
    assert first is not None
    hand = first[1].split(".")[0]
    while (turn := await db.to_act(GROUP)) is not None and turn[1].split(".")[0] == hand:
        uid, token, legal = turn
        command(fake, GROUP, uid, f"/stud {next(a for a in TYPED if a in legal)}", to=at)
        await wait_for(functools.partial(_moved_on, db, token), what=f"the action at {token} stored")


async def _moved_on(db: Db, token: str) -> bool:
    turn = await db.to_act(GROUP)
    return turn is None or turn[1] != token


def boards(fake: FakeBotAPI) -> dict[int, dict[str, Any]]:
    """Message id -> every board message in the group (with its buttons or without)."""
    return {mid: m for (c, mid), m in sorted(fake.messages.items()) if c == GROUP and m.get("from", {}).get("is_bot")
            and text_of(m).startswith("<pre>Hand #")}


def hand_of(message: dict[str, Any]) -> int:
    return int(text_of(message).removeprefix("<pre>Hand #").split(" ", 1)[0])


async def stored_ref(db: Db) -> str:
    rows = await db.read("SELECT board_ref FROM tables WHERE channel = ? AND open = 1", str(GROUP))
    return str(rows[0][0])


async def test_item15_a_holder_killed_after_posting_the_next_hands_board_leaves_the_newest_board_to_the_new_holder(
        fake: FakeBotAPI, pg_database: str, tmp_path: Path) -> None:
    async with cluster(fake, pg_database, tmp_path, kill_at={"w1": "board.posted"}, next_hand_delay=1) as (w1, w2, db):
        await open_table(fake, db, w1)
        await play_hand_out(fake, db, w1)
        # hand 2's board is a new message, and its reference is stored at once (not at the next action)
        second = await fake.wait_for(lambda: [mid for mid, m in boards(fake).items() if hand_of(m) == 2],
                                     what="hand 2's board")
        assert len(second) == 1
        await wait_for(lambda: _ref_is(db, second[0]), what=f"the board reference {second[0]} stored", timeout=3)

        w1.arm()  # w1 dies right after posting hand 3's board, before storing its reference
        await play_hand_out(fake, db, w1)
        await w1.died()
        before = boards(fake)
        orphan = max(before)
        last = max(mid for mid, m in before.items() if hand_of(m) == 2)  # hand 2's final board
        assert hand_of(before[orphan]) == 3 and last < orphan
        assert (await stored_ref(db)).split("#")[0] == str(last)
        await wait_for(lambda: db.holder_is(GROUP, "w2"), what="w2 takes the table over")

        # w2 posts hand 3's board anew: the newest message, the one stored, the one edited from now on
        fresh = await fake.wait_for(lambda: [mid for mid in boards(fake) if mid > orphan], what="a fresh board")
        assert len(fresh) == 1
        board = boards(fake)[fresh[0]]
        assert hand_of(board) == 3 and buttons(board)
        await wait_for(lambda: _ref_is(db, fresh[0]), what="the fresh board stored", timeout=3)
        # hand 2's board still shows hand 2 (never edited into hand 3), its buttons retired
        assert text_of(boards(fake)[last]) == text_of(before[last])
        assert hand_of(boards(fake)[last]) == 2 and not buttons(boards(fake)[last])
        assert " shows " not in text_of(board) and "Hand #2" not in text_of(board)  # no showdown of hand 2

        # the hand goes on on the fresh board; the orphan's buttons answer that their turn is over, and go
        turn = await db.to_act(GROUP)
        assert turn is not None
        uid, token, _ = turn
        data = next(d for d in buttons(board).values() if d.endswith(f"|{token}"))
        assert await delivered(fake, press(fake, GROUP, fresh[0], uid, data=data, to=w2)) == 200
        await fake.wait_for(lambda: turn_of(boards(fake)[fresh[0]]) not in (None, token), what="the next turn shown")
        stale = next(d for d in buttons(boards(fake)[orphan]).values() if d.endswith(f"|{token}"))
        nxt = await db.to_act(GROUP)
        assert nxt is not None
        pressed = press(fake, GROUP, orphan, nxt[0], data=stale, to=w2)
        answer = await fake.answer(fake.pushed[pressed]["callback_query"]["id"])
        assert "turn is over" in str(answer.get("text")), answer
        await fake.wait_for(lambda: not buttons(boards(fake)[orphan]), what="the orphan's buttons retired")
        assert hand_of(boards(fake)[last]) == 2


async def _ref_is(db: Db, message_id: int) -> bool:
    return (await stored_ref(db)).split("#")[0] == str(message_id)
