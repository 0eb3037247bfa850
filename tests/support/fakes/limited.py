"""The loopback Discord and Telegram with the platforms' published rate limits enforced.

:class:`LimitedDiscord` answers 429 as Discord does once a bot goes past
(https://docs.discord.com/developers/topics/rate-limits; the developer support article "My Bot is Being
Rate Limited"):

- the **global** limit: 50 requests a second per bot token, over every route except the interaction
  endpoints (``/interactions/{id}/{token}/callback`` and ``/webhooks/{app}/{token}...``: an interaction's
  response and follow-ups are "not bound to the bot's Global Rate Limit"); 429 with ``"global": true``,
  ``X-RateLimit-Global`` and ``X-RateLimit-Scope: global``;
- **per-route buckets** keyed on the top-level resource: a channel's message posts 5 per 5 s, its message
  edits 5 per 5 s (direct-message channels alike); 429 with ``retry_after`` in the JSON body,
  ``Retry-After`` and ``X-RateLimit-Scope: user``. Every answer of a bucketed route carries
  ``X-RateLimit-Limit/Remaining/Reset-After/Bucket``, so discord.py paces itself on them as on Discord.

:class:`LimitedBotAPI` answers 429 ``Too Many Requests: retry after N`` with ``parameters.retry_after``
as Telegram does (core.telegram.org/bots/faq, "My bot is hitting limits, how do I avoid this?"):

- about **30 messages a second** overall (bulk notifications to many users);
- **20 messages a minute** in one group;
- **1 message a second** in one private chat, on average: at most 3 in any 3 s (the FAQ says to *avoid*
  more than one a second; a short burst is not refused).

The FAQ speaks of *messages sent*; it says nothing of edits. The fake follows the text: the overall and the
per-chat budgets count ``send*`` methods, and (conservatively: editing a group's messages floods it alike)
a group's 20 a minute counts its edits too. ``edits_count=True`` makes edits count overall as well (the
pessimistic reading, for a bench that wants to see it).

Both take ``speed``: every period is divided by it (a bench running its tables ``speed`` times faster
than people meets limits ``speed`` times faster), and ``scale``: the per-token (global, overall) rates
are multiplied by it (a bench running a tenth of the tables meets a tenth of the global budget).
"""

from __future__ import annotations

import collections
import json
import re
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from .discord_gateway import json_response

# discord.py trusts a 429 only with Discord's "Via" header (without it: a Cloudflare ban, raised at once).
from .discord_server import FakeDiscord
from .telegram_server import Call as TgCall
from .telegram_server import FakeBotAPI

EXEMPT = re.compile(r"^/api/v10/(interactions/\d+/[^/]+/callback|webhooks/\d+/[^/]+)")
"""Interaction endpoints: not bound to the global limit."""
CHANNEL_ROUTE = re.compile(r"^/api/v10/channels/(\d+)/messages(/\d+)?$")
SEND_METHODS = frozenset({"sendmessage", "sendphoto", "senddocument", "sendmediagroup", "sendanimation",
                          "sendvideo", "sendsticker", "sendaudio", "sendvoice", "forwardmessage", "copymessage"})
EDIT_METHODS = frozenset({"editmessagetext", "editmessagecaption", "editmessagemedia", "editmessagereplymarkup"})


class Window:
    """At most ``limit`` events in any ``period`` seconds (a sliding log)."""

    def __init__(self, limit: int, period: float) -> None:
        self.limit, self.period = limit, period
        self.log: collections.deque[float] = collections.deque()

    def _trim(self, now: float) -> None:
        while self.log and self.log[0] <= now - self.period:
            self.log.popleft()

    def take(self, now: float) -> float:
        """0 and the event counted; or the seconds until one would be allowed (nothing counted)."""
        self._trim(now)
        if len(self.log) < self.limit:
            self.log.append(now)
            return 0.0
        return max(0.001, self.log[0] + self.period - now)

    def remaining(self, now: float) -> tuple[int, float]:
        self._trim(now)
        reset = self.log[0] + self.period - now if self.log else self.period
        return self.limit - len(self.log), max(0.0, reset)


@dataclass
class Refusal:
    """A 429 the fake gave: when, what, which limit."""

    at: float
    what: str
    scope: str


@dataclass
class DiscordLimits:
    global_per_second: float = 50.0
    route: tuple[int, float] = (5, 5.0)
    speed: float = 1.0
    scale: float = 1.0

    def global_window(self) -> Window:
        per_second = self.global_per_second * self.speed * self.scale
        return Window(max(1, round(per_second)), max(1, round(per_second)) / per_second)

    def route_window(self) -> Window:
        return Window(self.route[0], self.route[1] / self.speed)


class LimitedDiscord(FakeDiscord):
    """:class:`FakeDiscord` with Discord's global and per-route limits."""

    def __init__(self, limits: DiscordLimits | None = None) -> None:
        super().__init__()
        self.limits = limits or DiscordLimits()
        self.global_window = self.limits.global_window()
        self.buckets: dict[tuple[str, int], Window] = {}
        self.refusals: list[Refusal] = []
        self.enforcing = True
        """False: every request goes through (a bench seating its tables before it measures)."""
        self.app.middlewares.append(self._limit)  # inside the recording: a 429 is recorded as one

    @web.middleware
    async def _limit(self, request: web.Request, handler: Any) -> web.StreamResponse:
        path = request.path
        if path == "/gateway" or EXEMPT.match(path) or not self.enforcing:
            result: web.StreamResponse = await handler(request)
            return result
        now = time.monotonic()
        route = CHANNEL_ROUTE.match(path)
        bucket: Window | None = None
        key = ""
        if route is not None and request.method in ("POST", "PATCH"):
            key = f"{request.method}:{route.group(1)}"
            bucket = self.buckets.get((request.method, int(route.group(1))))
            if bucket is None:
                bucket = self.buckets[(request.method, int(route.group(1)))] = self.limits.route_window()
        wait = self.global_window.take(now)
        if wait > 0:
            self.refusals.append(Refusal(now, f"{request.method} {path}", "global"))
            return json_response({"message": "You are being rate limited.", "retry_after": round(wait, 3),
                                  "global": True}, status=429,
                                 headers={"Via": "1.1 google", "Retry-After": str(max(1, round(wait))),
                                          "X-RateLimit-Global": "true",
                                          "X-RateLimit-Scope": "global"})
        if bucket is not None:
            wait = bucket.take(now)
            if wait > 0:
                self.refusals.append(Refusal(now, f"{request.method} {path}", "route"))
                return json_response({"message": "You are being rate limited.", "retry_after": round(wait, 3),
                                      "global": False}, status=429,
                                     headers={"Via": "1.1 google", "Retry-After": str(max(1, round(wait))),
                                              "X-RateLimit-Scope": "user",
                                              "X-RateLimit-Limit": str(bucket.limit), "X-RateLimit-Remaining": "0",
                                              "X-RateLimit-Reset-After": f"{wait:.3f}",
                                              "X-RateLimit-Bucket": key})
        response: web.StreamResponse = await handler(request)
        if bucket is not None:
            remaining, reset = bucket.remaining(time.monotonic())
            response.headers.update({"X-RateLimit-Limit": str(bucket.limit), "X-RateLimit-Remaining": str(remaining),
                                     "X-RateLimit-Reset-After": f"{reset:.3f}", "X-RateLimit-Bucket": key})
        return response


@dataclass
class TelegramLimits:
    overall_per_second: float = 30.0
    group_per_minute: int = 20
    private: tuple[int, float] = (3, 3.0)
    edits_count: bool = False
    """Edits count against the overall 30/s too (the FAQ does not say so; off by default)."""
    speed: float = 1.0
    scale: float = 1.0


class LimitedBotAPI(FakeBotAPI):
    """:class:`FakeBotAPI` with Telegram's overall, per-group and per-chat limits."""

    def __init__(self, limits: TelegramLimits | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.limits = limits or TelegramLimits()
        per_second = self.limits.overall_per_second * self.limits.speed * self.limits.scale
        self.overall = Window(max(1, round(per_second)), max(1, round(per_second)) / per_second)
        self.windows: dict[int, Window] = {}
        self.refusals: list[Refusal] = []
        self.enforcing = True
        """False: every request goes through (a bench seating its tables before it measures)."""

    def _window(self, chat: int) -> Window:
        window = self.windows.get(chat)
        if window is None:
            if chat < 0:
                window = Window(self.limits.group_per_minute, 60.0 / self.limits.speed)
            else:
                window = Window(self.limits.private[0], self.limits.private[1] / self.limits.speed)
            self.windows[chat] = window
        return window

    async def _endpoint(self, request: web.Request) -> web.Response:
        method = request.match_info["method"].lower()
        send, edit = method in SEND_METHODS, method in EDIT_METHODS
        if (send or edit) and self.enforcing:
            chat = await _chat_of(request)
            now = time.monotonic()
            wait = 0.0
            scope = ""
            if send or self.limits.edits_count:
                wait, scope = self.overall.take(now), "overall"
            if wait == 0 and chat is not None and (send or chat < 0):
                wait, scope = self._window(chat).take(now), "group" if chat < 0 else "chat"
            if wait > 0:
                retry = max(1, int(wait + 0.999))
                self.refusals.append(Refusal(now, f"{method} {chat}", scope))
                self.calls.append(TgCall(t=now, method=request.match_info["method"], params={"chat_id": chat},
                                         status=429))
                return web.json_response({"ok": False, "error_code": 429,
                                          "description": f"Too Many Requests: retry after {retry}",
                                          "parameters": {"retry_after": retry}}, status=429)
        return await super()._endpoint(request)


async def _chat_of(request: web.Request) -> int | None:
    """The chat_id of a Bot API request (JSON, form or multipart), read without consuming it for the handler."""
    try:
        if request.content_type == "application/json":
            value = (await request.json()).get("chat_id")
        elif request.method == "POST":
            value = (await request.post()).get("chat_id")
        else:
            value = request.query.get("chat_id")
        if isinstance(value, bytes):
            value = value.decode()
        return int(str(value)) if value is not None else None
    except (ValueError, json.JSONDecodeError):
        return None
