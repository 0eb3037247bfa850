"""The routing and coalescing messengers (the Coalescer on a manual clock: time is moved, never slept)."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.clock import ManualClock
from bot.core.ports import BoardView, TableAddress
from bot.platform.outbox import Coalescer, Router

T = TableAddress(platform="x", community="c", channel="1")


async def idle() -> None:
    """Let every task that can run, run (a flush started, a send woken), without time moving."""
    for _ in range(20):
        await asyncio.sleep(0)


async def run_for(clock: ManualClock, seconds: float) -> None:
    """``seconds`` pass: each timer fires at its moment, and what it started runs before time moves on."""
    end = clock.now() + seconds
    await idle()
    while due := [when for when in clock.pending if when <= end]:
        await clock.advance(max(0.0, due[0] - clock.now()))
        await idle()
    await clock.advance(end - clock.now())
    await idle()


async def takes(clock: ManualClock, seconds: float) -> None:
    """A slow call to the platform: it returns ``seconds`` later on ``clock``."""
    woken = asyncio.Event()

    async def wake() -> None:
        woken.set()

    clock.call_at(clock.now() + seconds, wake)
    await woken.wait()


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        self.calls.append(("board", board.text))
        return ref or f"m{len(self.calls)}"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        self.calls.append(("say", text))

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        self.calls.append(("dm", f"{user}:{text}"))
        return user != "closed"


def view(text: str, *, final: bool = False) -> BoardView:
    return BoardView(text=text, buttons=(), hand_no=1, final=final)


@pytest.mark.asyncio
async def test_edits_and_lines_are_coalesced_the_last_board_wins() -> None:
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=0.2, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    assert ref == "m1"
    for i in range(1, 30):
        await out.announce(table=T, text=f"line {i}")
        assert await out.publish_board(table=T, board=view(f"b{i}"), ref=ref) == ref
    await run_for(clock, 0.35)
    assert inner.calls == [("board", "b0"), ("say", "\n".join(f"line {i}" for i in range(1, 30))), ("board", "b29")]


@pytest.mark.asyncio
async def test_final_board_is_sent_at_once_and_dms_pass_through() -> None:
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=10, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.publish_board(table=T, board=view("b1"), ref=ref)
    await out.publish_board(table=T, board=view("end", final=True), ref=ref)
    await run_for(clock, 0.01)
    assert inner.calls[-1] == ("board", "end")
    assert ("board", "b1") not in inner.calls
    assert await out.send_private(platform="x", user="closed", text="hi") is False


@pytest.mark.asyncio
async def test_an_urgent_board_a_deal_goes_at_once_not_after_the_interval() -> None:
    """Issue 24: a deal's board is urgent, its private cards follow it; held back for the table's interval it
    came seconds after them."""
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=10, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.publish_board(table=T, board=view("b1"), ref=ref)  # an action: waits for the interval
    await run_for(clock, 0.01)
    assert ("board", "b1") not in inner.calls
    await out.publish_board(table=T, board=BoardView(text="dealt", buttons=(), hand_no=1, urgent=True), ref=ref)
    await run_for(clock, 0.01)
    assert inner.calls[-1] == ("board", "dealt") and ("board", "b1") not in inner.calls


@pytest.mark.asyncio
async def test_router_sends_each_platform_to_its_messenger() -> None:
    a, b = Recorder(), Recorder()
    router = Router()
    router.register("a", a)
    router.register("b", b)
    await router.announce(table=TableAddress(platform="b", community="c", channel="9"), text="hello")
    assert b.calls == [("say", "hello")] and a.calls == []
    with pytest.raises(LookupError):
        await router.announce(table=T, text="nobody")


@pytest.mark.asyncio
async def test_what_arrives_during_a_slow_send_is_sent_after_it() -> None:
    clock = ManualClock()

    class Slow(Recorder):
        async def announce(self, *, table: TableAddress, text: str) -> None:
            await takes(clock, 0.1)
            await super().announce(table=table, text=text)

    inner = Slow()
    out = Coalescer(inner, interval=0.05, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.announce(table=T, text="first")
    await run_for(clock, 0.07)  # the flush is now waiting on the slow announce
    assert inner.calls == [("board", "b0")]
    await out.publish_board(table=T, board=view("b1"), ref=ref)
    await run_for(clock, 0.4)
    assert inner.calls[-1] == ("board", "b1")


@pytest.mark.asyncio
async def test_a_final_board_during_a_send_does_not_cancel_it_and_goes_right_after() -> None:
    clock = ManualClock()

    class Slow(Recorder):
        async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
            if ref is not None:
                await takes(clock, 0.1)
            return await super().publish_board(table=table, board=board, ref=ref)

    inner = Slow()
    out = Coalescer(inner, interval=5, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.publish_board(table=T, board=view("b1", final=True), ref=ref)  # flushed at once
    await run_for(clock, 0.02)  # b1 is being sent
    assert inner.calls == [("board", "b0")]
    await out.publish_board(table=T, board=view("b2", final=True), ref=ref)
    await run_for(clock, 0.35)
    assert [c for c in inner.calls if c[0] == "board"] == [("board", "b0"), ("board", "b1"), ("board", "b2")]


@pytest.mark.asyncio
async def test_drain_at_shutdown_waits_for_a_send_in_flight_and_sends_the_rest() -> None:
    gate = asyncio.Event()

    class Held(Recorder):
        async def announce(self, *, table: TableAddress, text: str) -> None:
            await gate.wait()
            await super().announce(table=table, text=text)

    inner, clock = Held(), ManualClock()
    out = Coalescer(inner, interval=10, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.announce(table=T, text="first")  # the post just went: it waits its turn
    await out.publish_board(table=T, board=view("end", final=True), ref=ref)  # final: flushed now, held in send
    await run_for(clock, 0.01)
    await out.announce(table=T, text="second")  # arrives while the send is in flight
    draining = asyncio.create_task(out.drain())
    await run_for(clock, 0.05)
    assert not draining.done(), "the drain cut the send in flight off"
    gate.set()
    await asyncio.wait_for(draining, 1)
    assert inner.calls == [("board", "b0"), ("say", "first"), ("board", "end"), ("say", "second")]


class Drawing:
    """A board drawn from a state that moves on: counts its drawings."""

    def __init__(self) -> None:
        self.state = 0
        self.drawn: list[int] = []

    def __call__(self) -> BoardView:
        self.drawn.append(self.state)
        return view(f"b{self.state}")


@pytest.mark.asyncio
async def test_a_deferred_board_is_drawn_once_when_its_flush_sends_it() -> None:
    inner, drawing, clock = Recorder(), Drawing(), ManualClock()
    out = Coalescer(inner, interval=0.2, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    for i in range(1, 11):
        drawing.state = i
        await out.announce(table=T, text=f"line {i}")
        assert await out.defer_board(table=T, draw=drawing, ref=ref) == ref
    assert drawing.drawn == []  # ten changes, nothing drawn before the flush
    await run_for(clock, 0.35)
    assert drawing.drawn == [10]  # drawn once, as the table stands when it is sent
    assert inner.calls == [("board", "b0"), ("say", "\n".join(f"line {i}" for i in range(1, 11))), ("board", "b10")]


@pytest.mark.asyncio
async def test_a_final_board_replaces_a_drawing_and_a_post_sends_the_drawing_first() -> None:
    inner, drawing, clock = Recorder(), Drawing(), ManualClock()
    out = Coalescer(inner, interval=10, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    drawing.state = 1
    await out.defer_board(table=T, draw=drawing, ref=ref)
    await out.publish_board(table=T, board=view("end", final=True), ref=ref)  # at once, never drawn over
    await run_for(clock, 0.01)
    assert inner.calls == [("board", "b0"), ("board", "end")] and drawing.drawn == []
    drawing.state = 2
    await out.defer_board(table=T, draw=drawing, ref=ref)
    assert await out.publish_board(table=T, board=view("new"), ref=None) == "m4"  # a post is never delayed
    assert inner.calls[2:] == [("board", "b2"), ("board", "new")] and drawing.drawn == [2]


@pytest.mark.asyncio
async def test_a_drawing_that_fails_is_logged_and_the_lines_still_go(caplog: pytest.LogCaptureFixture) -> None:
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=0.05, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)

    def broken() -> BoardView:
        raise ValueError("a rendering bug")

    await out.announce(table=T, text="ann calls")
    await out.defer_board(table=T, draw=broken, ref=ref)
    await run_for(clock, 0.15)
    assert inner.calls == [("board", "b0"), ("say", "ann calls")]
    assert "drawing the board of x:1 failed" in caplog.text
    await out.defer_board(table=T, draw=lambda: view("b1"), ref=ref)  # the next change draws again
    await run_for(clock, 0.15)
    assert inner.calls[-1] == ("board", "b1")


@pytest.mark.asyncio
async def test_the_router_defers_to_an_outbox_and_draws_at_once_for_a_messenger_that_shows_every_board() -> None:
    plain, held = Recorder(), Recorder()
    router = Router()
    router.register("x", plain)
    router.register("y", Coalescer(held, interval=10, clock=ManualClock()))
    drawing = Drawing()
    assert await router.defer_board(table=T, draw=drawing, ref="m0") == "m0"
    assert plain.calls == [("board", "b0")] and drawing.drawn == [0]
    y = TableAddress(platform="y", community="c", channel="1")
    ref = await router.publish_board(table=y, board=view("first"), ref=None)
    assert ref is not None
    await router.defer_board(table=y, draw=drawing, ref=ref)
    assert drawing.drawn == [0] and held.calls == [("board", "first")]


@pytest.mark.asyncio
async def test_a_board_drawn_again_unchanged_is_not_sent_unless_lines_go_with_it() -> None:
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=0.05, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.defer_board(table=T, draw=lambda: view("b0"), ref=ref)  # the table as it was posted
    await run_for(clock, 0.12)
    assert inner.calls == [("board", "b0")]  # an edit that would change nothing: left out
    await out.announce(table=T, text="ann checks")
    await out.defer_board(table=T, draw=lambda: view("b0"), ref=ref)
    await run_for(clock, 0.12)
    assert inner.calls[1:] == [("say", "ann checks"), ("board", "b0")]  # lines go with their board
    await out.defer_board(table=T, draw=lambda: view("b1"), ref=ref)
    await run_for(clock, 0.12)
    assert inner.calls[-1] == ("board", "b1")


@pytest.mark.asyncio
async def test_a_waiting_flush_goes_at_once_for_a_final_board_or_a_drain_and_never_again_after() -> None:
    inner, clock = Recorder(), ManualClock()
    out = Coalescer(inner, interval=0.2, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    await out.announce(table=T, text="ann calls")  # the post just went: this waits 0.2 s
    await run_for(clock, 0.01)
    assert inner.calls == [("board", "b0")]
    await out.publish_board(table=T, board=view("end", final=True), ref=ref)  # no more waiting
    await run_for(clock, 0.01)
    assert inner.calls == [("board", "b0"), ("say", "ann calls"), ("board", "end")]
    await out.announce(table=T, text="ann wins")  # waits for the interval again
    await out.drain()  # at shutdown: now, not at the end of the wait
    assert inner.calls[3:] == [("say", "ann wins")]
    await run_for(clock, 0.3)  # the wait cut short sends nothing more
    assert len(inner.calls) == 4


class Poster(Recorder):
    """Edits a board in place, but shows a board whose text starts with 'next' as a new message."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str | None] = []

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        self.refs.append(ref)
        self.calls.append(("board", board.text))
        return f"m{len(self.calls)}" if ref is None or board.text.startswith("next") else ref


@pytest.mark.asyncio
async def test_item15_a_new_message_a_flush_posts_is_told_at_once_and_a_stale_post_never_overrides_the_cores_ref(
        ) -> None:
    inner = Poster()
    moved: list[tuple[str, str]] = []

    async def told(table: TableAddress, ref: str) -> None:
        moved.append((table.key, ref))

    clock = ManualClock()
    out = Coalescer(inner, interval=0.05, moved=told, clock=clock)
    ref = await out.publish_board(table=T, board=view("b0"), ref=None)
    assert ref == "m1" and moved == []  # a post the core asked for: it has the reference already
    assert await out.publish_board(table=T, board=view("next hand"), ref=ref) == "m1"
    await run_for(clock, 0.1)
    assert moved == [(T.key, "m2")]  # the core stores it now, not at the table's next change
    assert await out.publish_board(table=T, board=view("b1"), ref="m1") == "m2"  # the core lagging: the newest
    await run_for(clock, 0.1)
    assert inner.refs[-1] == "m2"
    # another process showed the table meanwhile (this one lost it, then took it back): the core's newer
    # reference wins over the one this outbox posted long ago
    await out.publish_board(table=T, board=view("b2"), ref="m9")
    await run_for(clock, 0.1)
    assert inner.refs[-1] == "m9"
