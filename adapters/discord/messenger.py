"""The Messenger port on Discord: boards, public lines and DMs, within the per-channel limits.

Each channel has an ordered queue with one worker, so a table's messages land in
the order the bot produced them and never faster than :data:`LIMIT` per
:data:`WINDOW` seconds (Discord allows 5 per 5 s per channel; we keep a margin).
Board *edits* and public lines are queued and acknowledged at once (the
:class:`~bot.platform.outbox.Coalescer` in front of us must never wait on Discord); a
board *post* waits for its message id. A queued edit that has not been sent yet
is replaced by a newer board of the same message, except a final board (the end
of a hand), which is always shown; public lines still waiting are joined into one
message (up to 2,000 characters), so a backlog shrinks instead of growing. 429s are retried by discord.py; other errors
are logged, never dropped silently, and never stop the queue.

Issue 24 (one token, hundreds of tables):

- The lines of a hand in progress are folded into its board's embed (the latest :data:`LINES_SHOWN` under the
  board, as Telegram's caption holds them), not posted as messages of their own: a line costs no call. Lines
  that come with a hand's final board (its result and seed), or with no board at all, are posted as before.
- Every call against the bot's global limit (50 requests/s per token; interaction responses are exempt)
  takes a token from one :class:`Budget` first, by priority: private cards first, then boards, then lines.
  A channel's job waits for its token *in* the queue, so near the limit a newer board replaces the one
  waiting (boards coalesce more) instead of everything queueing behind 429s.
- A board edit goes through the token of the latest press on that board while it lives (:meth:`pressed`;
  the adapter answered the press as the board's update): an interaction endpoint, exempt from the global
  limit and from the channel's route bucket. Deals, house bots and timeouts after a press use it too; with
  none (or if it fails) the edit goes the usual way, with a token of the budget.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import io
import logging
import time
from dataclasses import dataclass, field
from typing import Literal

import discord

from adapters.discord import render
from adapters.discord.buttons import StudButton
from bot.core.ports import BoardView, Button, TableAddress
from bot.platform.budget import BOARD, CARDS, LINE, Budget, Event, Window
from bot.platform.outbox import Tally

log = logging.getLogger(__name__)

LIMIT = 5
WINDOW = 5.3
"""Seconds of the sliding window: Discord's 5 s plus a margin for latency jitter."""
LINES_SHOWN = 6
"""A hand's public lines kept under its board (the newest)."""
PRESS_LIFETIME = 14 * 60.0
"""Seconds a press's token edits its board (Discord: an interaction's token lives 15 minutes)."""
GLOBAL_RATE = 45.0
"""Requests a second the bot allows itself: Discord's global 50 per token, less a margin for latency jitter."""


@dataclass
class _Job:
    kind: Literal["post", "edit", "say", "amend"]
    board: BoardView | None = None
    text: str = ""
    ref: str | None = None
    done: asyncio.Future[str | None] | None = None
    lines: int = 0
    """Announcements this message completes (the channel's :class:`~bot.platform.outbox.Tally` counts them)."""
    buttons: tuple[Button, ...] = ()
    """A 'say' with buttons of its own (a request to the host): never joined with other lines."""
    shown: tuple[str, ...] = ()
    """A board's folded lines: the hand's latest public lines, shown under it."""


@dataclass
class _Channel:
    id: int
    jobs: collections.deque[_Job] = field(default_factory=collections.deque)
    window: Window = field(default_factory=lambda: Window(LIMIT, WINDOW))
    worker: asyncio.Task[None] | None = None
    tally: Tally = field(default_factory=Tally)
    held: list[str] = field(default_factory=list)
    """Lines announced and not yet sent: the next board of a hand in progress takes them."""
    recent: list[str] = field(default_factory=list)
    """The lines of the hand ``recent_hand`` folded so far (its board shows the latest)."""
    recent_hand: int = -1
    press: tuple[int, discord.Interaction[discord.Client], float] | None = None
    """The latest press on a board of the channel answered as the board's update: (message id, the interaction,
    when): its token edits that message."""


class DiscordMessenger:
    """Sends through a logged-in :class:`discord.Client` (its HTTP side only)."""

    def __init__(self, client: discord.Client, budget: Budget | None = None) -> None:
        self.client = client
        self.budget = budget if budget is not None else Budget(GLOBAL_RATE)
        """The token's global budget (every call of this messenger takes from it)."""
        self._channels: dict[int, _Channel] = {}
        self._closed = False
        self._moved: dict[str, str] = {}
        """Board messages that were gone and posted again: old ref -> new ref."""
        self._dm_channels: dict[int, int] = {}

    # ------------------------------------------------------------------ the port

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        channel = self._channel(table)
        folded, shown = self._fold(channel, board)
        if ref is None:
            done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            self._enqueue(channel, _Job("post", board=board, done=done, lines=folded, shown=shown))
            return await done
        ref = self._current(ref)
        for job in reversed(channel.jobs):  # a newer board replaces one still waiting (never a final one)
            if job.kind == "edit" and job.ref == ref:
                # A final board shows no folded lines: one waiting with lines is sent before it, not replaced.
                if job.board is not None and not job.board.final and not (board.final and job.lines):
                    job.board, job.shown = board, shown
                    job.lines += folded
                    return ref
                break
        self._enqueue(channel, _Job("edit", board=board, ref=ref, lines=folded, shown=shown))
        return ref

    def _fold(self, channel: _Channel, board: BoardView) -> tuple[int, tuple[str, ...]]:
        """The lines held for ``channel`` go with ``board``: folded into it (a hand in progress), or posted
        before it (a final board, or no hand). (Lines folded, the lines the board shows.)"""
        held, channel.held = channel.held, []
        if board.hand_no != channel.recent_hand:
            channel.recent, channel.recent_hand = [], board.hand_no
        if held and (board.final or board.hand_no <= 0):
            self._say(channel, held)
            held = []
        channel.recent = (channel.recent + held)[-max(LINES_SHOWN, len(held)):]  # every line shown once at least
        return len(held), tuple(channel.recent) if not board.final else ()

    def _lines_alone(self, channel: _Channel) -> None:
        """No board took the lines held (the same flush had none): they are posted on their own."""
        held, channel.held = channel.held, []
        if held:
            self._say(channel, held)

    async def announce(self, *, table: TableAddress, text: str) -> None:
        """Held for the board that (almost always) comes in the same flush of the outbox; with none, posted."""
        channel = self._channel(table)
        channel.tally.add(1)
        if not channel.held:
            asyncio.get_running_loop().call_soon(self._lines_alone, channel)
        channel.held.append(text)

    def _say(self, channel: _Channel, texts: list[str]) -> None:
        """Lines as messages (joined with lines still waiting, up to a message's length)."""
        for text in texts:
            self._say_one(channel, text)

    def _say_one(self, channel: _Channel, text: str) -> None:
        job: _Job | None = None
        for chunk in render.chunks(render.public_text(text)):
            last = channel.jobs[-1] if channel.jobs else None
            if last is not None and last.kind == "say" and not last.buttons \
                    and len(last.text) + 1 + len(chunk) <= render.MESSAGE_LIMIT:
                last.text += "\n" + chunk  # lines still waiting go out as one message
                job = last
            else:
                job = _Job("say", text=chunk)
                self._enqueue(channel, job)
        if job is None:
            channel.tally.done(1, ok=True)  # nothing to say
        else:
            job.lines += 1

    async def post_prompt(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A message with buttons of its own, in the channel's queue (:class:`~bot.core.ports.Prompting`):
        waits for its id, as a board's post does."""
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        channel = self._channel(table)
        self._lines_alone(channel)  # the lines before it come first
        self._enqueue(channel, _Job("say", text=render.chunks(render.public_text(text))[0],
                                    buttons=buttons, done=done))
        return await done

    async def close_prompt(self, *, table: TableAddress, ref: str, text: str) -> None:
        """The prompt ``ref`` edited to ``text``, its buttons removed (queued)."""
        channel = self._channel(table)
        self._lines_alone(channel)
        self._enqueue(channel, _Job("amend", text=render.chunks(render.public_text(text))[0], ref=ref))

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A notice (a settle-up) is posted as a board is: an embed (its first line the title, the rest in a
        code block) with its buttons, in the channel's queue; final, so an edit of it is never dropped."""
        return await self.publish_board(table=table, board=_notice(text, buttons), ref=None)

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        await self.publish_board(table=table, board=_notice(text, buttons), ref=ref)
        return True

    async def delivered(self, *, table: TableAddress) -> bool:
        """Wait until the lines announced so far in the channel are sent (:class:`~bot.core.ports.Confirming`)."""
        return await self._channel(table).tally.wait()

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        try:
            user_id = int(user)
        except ValueError:
            return False
        try:
            dm_id = self._dm_channels.get(user_id)
            if dm_id is None:
                async with self.budget.slot(CARDS):
                    dm = await self.client.create_dm(discord.Object(id=user_id))
                dm_id = self._dm_channels[user_id] = dm.id
            channel = self.client.get_partial_messageable(dm_id, type=discord.ChannelType.private)
            for i, chunk in enumerate(render.chunks(text)):
                async with self.budget.slot(CARDS):
                    if i == 0 and image is not None:  # the cards as a picture, the text with it
                        await channel.send(chunk, allowed_mentions=discord.AllowedMentions.none(),
                                           file=discord.File(io.BytesIO(image), filename=render.CARDS_FILE))
                    else:
                        await channel.send(chunk, allowed_mentions=discord.AllowedMentions.none())
        except discord.Forbidden as exc:
            log.info("cannot DM user %s (code %s): %s", user, exc.code, exc.text)
            return False
        except (discord.HTTPException, OSError, RuntimeError):
            log.exception("DM to user %s failed", user)
            return False
        return True

    def pressed(self, channel_id: int, message_id: int, interaction: discord.Interaction[discord.Client]) -> None:
        """A press on ``message_id`` was deferred as its update: its token edits that board from now on."""
        channel = self._channels.get(channel_id)
        if channel is None:
            channel = self._channels[channel_id] = _Channel(id=channel_id)
        if channel.press is None or message_id >= channel.press[0]:  # a press on an older board changes nothing
            channel.press = (message_id, interaction, time.monotonic())

    def _press_for(self, channel: _Channel, job: _Job) -> discord.Interaction[discord.Client] | None:
        """The press whose token may edit this job's board (exempt from the global limit), if any."""
        press = channel.press
        if job.kind != "edit" or press is None or job.ref is None or str(press[0]) != self._current(job.ref):
            return None
        if time.monotonic() - press[2] > PRESS_LIFETIME:
            channel.press = None
            return None
        return press[1]

    # ------------------------------------------------------------------ shutdown

    @property
    def idle(self) -> bool:
        return all(not c.jobs and (c.worker is None or c.worker.done()) for c in self._channels.values())

    async def flush(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until every queued message is sent; True if all were."""
        workers = [c.worker for c in self._channels.values() if c.worker is not None and not c.worker.done()]
        if not workers:
            return True
        _, pending = await asyncio.wait(workers, timeout=timeout)
        return not pending

    async def close(self) -> None:
        """Stop the workers (what is still queued is lost; the board is restored on the next start); what comes
        after is not sent (the client's session closes next: a late board would fail there)."""
        self._closed = True
        for channel in self._channels.values():
            if channel.worker is not None and not channel.worker.done():
                channel.worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await channel.worker
            for job in channel.jobs:
                if job.done is not None and not job.done.done():
                    job.done.set_result(None)
                channel.tally.done(job.lines, ok=False)
            channel.jobs.clear()
            channel.tally.done(len(channel.held), ok=False)
            channel.held.clear()

    # ------------------------------------------------------------------ the queues

    def _channel(self, table: TableAddress) -> _Channel:
        channel_id = int(table.channel)
        channel = self._channels.get(channel_id)
        if channel is None:
            channel = self._channels[channel_id] = _Channel(id=channel_id)
        return channel

    def _current(self, ref: str) -> str:
        while ref in self._moved:
            ref = self._moved[ref]
        return ref

    def _enqueue(self, channel: _Channel, job: _Job) -> None:
        if self._closed:  # after close() (the client's HTTP session closes next): said nowhere, as close() says
            log.info("not sent, the messenger is closed: a %s to channel %s", job.kind, channel.id)
            if job.done is not None and not job.done.done():
                job.done.set_result(None)
            channel.tally.done(job.lines, ok=False)
            return
        channel.jobs.append(job)
        if channel.worker is None or channel.worker.done():
            channel.worker = asyncio.get_running_loop().create_task(self._work(channel),
                                                                    name=f"discord-outbox-{channel.id}")

    async def _work(self, channel: _Channel) -> None:
        while channel.jobs:
            wait = channel.window.delay()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            # The token is taken with the job still queued: a newer board replaces it meanwhile.
            held: list[Event] = []
            if self._press_for(channel, channel.jobs[0]) is None:
                held.append(await self.budget.take(LINE if channel.jobs[0].kind in ("say", "amend") else BOARD,
                                                   held=True))
            if not channel.jobs:
                for event in held:
                    self.budget.release(event)
                break
            job = channel.jobs.popleft()
            try:
                result = await self._send(channel, job, held)
            except asyncio.CancelledError:
                if job.done is not None and not job.done.done():
                    job.done.set_result(None)
                channel.tally.done(job.lines, ok=False)
                raise
            except Exception:
                log.exception("sending a %s to channel %s failed", job.kind, channel.id)
                result = None
                channel.tally.done(job.lines, ok=False)
            else:
                channel.tally.done(job.lines, ok=True)
            finally:  # answered: the calls count a window from now (Discord counted them as they arrived)
                channel.window.settle()
                for event in held:
                    self.budget.release(event)
            if job.done is not None and not job.done.done():
                job.done.set_result(result)

    async def _send(self, channel: _Channel, job: _Job, held: list[Event]) -> str | None:
        """The job's call (its token taken, in ``held``; a second call's token is added there)."""
        target = self.client.get_partial_messageable(channel.id)
        if job.kind == "say":
            channel.window.note(held=True)
            if job.buttons:
                view = discord.ui.View(timeout=None)
                for button in job.buttons:
                    view.add_item(StudButton(button.command, label=button.label))
                sent = await target.send(job.text, view=view, allowed_mentions=discord.AllowedMentions.none())
                return str(sent.id)
            await target.send(job.text, allowed_mentions=discord.AllowedMentions.none())
            return None
        if job.kind == "amend":
            assert job.ref is not None
            channel.window.note(held=True)
            try:
                await target.get_partial_message(int(job.ref)).edit(content=job.text, view=None)
            except (discord.NotFound, ValueError):
                log.info("prompt %s in %s is gone; not edited", job.ref, channel.id)
            return job.ref
        assert job.board is not None
        embed, view = render.board_embed(job.board, job.shown), board_view(job.board)
        press = self._press_for(channel, job)
        if press is not None:
            try:  # through the press's token: no request of the bot's global budget
                await press.edit_original_response(embed=embed, view=view, attachments=_files(job.board))
                return job.ref
            except (discord.HTTPException, ValueError) as exc:
                log.info("editing board %s through a press failed (%s); editing it as the bot", job.ref, exc)
                channel.press = None
                held.append(await self.budget.take(BOARD, held=True))
        if job.kind == "edit" and job.ref is not None:
            channel.window.note(held=True)
            try:  # the attachments replace the message's: the new image, or none (a text board)
                await target.get_partial_message(int(job.ref)).edit(embed=embed, view=view,
                                                                    attachments=_files(job.board))
                return job.ref
            except discord.NotFound:
                log.info("board message %s in %s is gone; posting a new one", job.ref, channel.id)
                wait = channel.window.delay()
                if wait > 0:
                    await asyncio.sleep(wait)
                held.append(await self.budget.take(BOARD, held=True))
            except ValueError:
                log.warning("board reference %r is not a message id; posting a new one", job.ref)
        channel.window.note(held=True)
        message = await target.send(embed=embed, view=view, files=_files(job.board),
                                    allowed_mentions=discord.AllowedMentions.none())
        new_ref = str(message.id)
        if job.ref is not None:
            self._moved[job.ref] = new_ref
        return new_ref


def _notice(text: str, buttons: tuple[Button, ...]) -> BoardView:
    return BoardView(text=text, buttons=buttons, hand_no=0, final=True)


def _files(board: BoardView) -> list[discord.File]:
    """The board's image as an attachment (a fresh file each time: a file is read once)."""
    if board.image is None:
        return []
    return [discord.File(io.BytesIO(board.image), filename=render.BOARD_FILE)]


def board_view(board: BoardView) -> discord.ui.View:
    """The board's buttons as a view of :class:`~adapters.discord.buttons.StudButton` (survive restarts)."""
    view = discord.ui.View(timeout=None)
    for row, button in render.button_rows(board.buttons):
        view.add_item(StudButton(button.command, label=button.label, row=row))
    return view
