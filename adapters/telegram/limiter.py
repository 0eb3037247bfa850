"""Telegram's limits, as documented, applied by priority (issue 24): python-telegram-bot's rate limiter.

Telegram's Bots FAQ ("My bot is hitting limits, how do I avoid this?") gives three numbers, all of
*messages sent*: about 30 messages a second overall (to many chats), no more than one a second in one
chat, and 20 a minute in one group. It says nothing of edits. PTB's ``AIORateLimiter`` counted every
request that names a chat against the 30 a second, board edits included, and on any 429 stalled every
request of the bot until it passed: one busy group held up the private cards of every table.

:class:`StudRateLimiter` follows the documentation:

- the overall budget (``overall`` a second, 27 by default: 30 less a margin) counts messages *sent*
  (``send*``, ``copyMessage``, ``forwardMessage``), and hands them out by priority (a
  :class:`~bot.platform.budget.Budget`): a player's private cards first, then boards, then lines;
- a group's 20 a minute counts its messages *and* its edits (a group flooded by edits is flooded all
  the same; the bootstrap's outbox keeps a table's board near one edit every few seconds);
- a private chat gets about one message a second: at most 3 in any 3 s (a player's cards and the answer to
  their command may come together);
- a 429 waits its ``retry_after`` for that request only, and retries it (``max_retries`` times);
- a request counts, in every budget, from its turn until its answer and then a window on: Telegram counts
  it when it arrives, which is between the two.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.platform.budget import BOARD, CARDS, LINE, Budget, Event, Window

log = logging.getLogger(__name__)

OVERALL = 27.0
"""Messages a second the bot allows itself (Telegram: about 30)."""
MARGIN = 1.05
"""A chat's window a little longer than Telegram's: a request sent at the edge arrives after it."""
SENDS = ("send", "copyMessage", "forwardMessage", "copyMessages", "forwardMessages")
NOT_MESSAGES = ("sendChatAction",)


class StudRateLimiter(BaseRateLimiter[int]):
    """Overall, per-group and per-chat limits, as documented; messages by priority."""

    def __init__(self, *, overall: float = OVERALL, group: tuple[int, float] = (20, 60.0),
                 private: tuple[int, float] = (3, 3.0), max_retries: int = 3) -> None:
        self.budget = Budget(overall)
        self.group, self.private, self.max_retries = group, private, max_retries
        self._windows: dict[int, Window] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def forget_chats(self) -> None:
        """Start every chat's window afresh (a bench that seated its tables with the limits off)."""
        self._windows.clear()

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    def _window(self, chat: int) -> Window:
        window = self._windows.get(chat)
        if window is None:
            limit, seconds = self.group if chat < 0 else self.private
            window = self._windows[chat] = Window(limit, seconds * MARGIN)
        return window

    async def _chat_turn(self, chat: int) -> tuple[Window, Event]:
        """Wait until the chat's window allows one more (one waiter a chat at a time: in order); the call
        counts as in flight until :meth:`Window.done`."""
        lock = self._locks.setdefault(chat, asyncio.Lock())
        async with lock:
            window = self._window(chat)
            while (wait := window.delay()) > 0:
                await asyncio.sleep(min(wait, 1.0))  # a call in flight may be answered sooner
            return window, window.note(held=True)

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] |
                                                                        list[dict[str, Any]]]],
                              args: Any, kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> bool | dict[str, Any] | list[dict[str, Any]]:
        chat = _chat(data.get("chat_id"))
        send = endpoint.startswith(SENDS) and endpoint not in NOT_MESSAGES
        edit = endpoint.startswith("edit")
        retries = rate_limit_args if rate_limit_args is not None else self.max_retries
        for attempt in range(retries + 1):
            turn = overall = None
            if chat is not None and (send or (edit and chat < 0)):
                turn = await self._chat_turn(chat)
            try:
                if send:
                    if chat is not None and chat > 0:
                        priority = CARDS
                    elif "reply_markup" in data and data.get("reply_markup"):
                        priority = BOARD
                    else:
                        priority = LINE
                    overall = await self.budget.take(priority, held=True)
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt >= retries:
                    raise
                wait = exc.retry_after
                seconds = wait.total_seconds() if isinstance(wait, dt.timedelta) else float(wait)
                log.info("telegram: %s to %s refused (429); again in %.1f s", endpoint, chat, seconds)
                await asyncio.sleep(seconds + 0.1)
            finally:  # answered (or refused): each counts a window from now
                if turn is not None:
                    turn[0].done(turn[1])
                if overall is not None:
                    self.budget.release(overall)
        raise AssertionError("unreachable")


def _chat(value: object) -> int | None:
    try:
        return int(str(value)) if value is not None else None
    except ValueError:
        return None  # '@channelname': only the overall budget
