"""The gateway side of the loopback Discord: shards, guilds and the events they carry.

Like Discord, the gateway is split into shards: a client IDENTIFYs with ``shard: [id, count]``
(none: shard 0 of 1) and receives the events of the guilds with ``(guild_id >> 22) % count == id``;
direct messages (events without a guild) go to shard 0 only. ``GET /gateway/bot`` recommends
:attr:`FakeGateway.shard_count` shards and tells ``max_concurrency``. Several processes may each
hold some shards of the same fake (each shard is one websocket); a shard id outside the count is
closed with 4010 (Invalid shard), as Discord does.

:class:`~fakes.discord_server.FakeDiscord` is a :class:`FakeGateway`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType, web

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 700000000000000001
"""The test server: on shard 1 of 2 (``(GUILD_ID >> 22) % 2``)."""
CHANNEL_ID = 700000000000000010
OTHER_GUILD_ID = GUILD_ID + (1 << 22)
"""A second server, on shard 0 of 2 (add it with :meth:`FakeGateway.add_guild`)."""
OTHER_CHANNEL_ID = OTHER_GUILD_ID + 9
EVERYONE_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 31)  # view channel, send messages, use application commands
INVALID_SHARD = 4010


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {"id": str(user_id), "username": name.lower(), "global_name": name, "discriminator": "0",
            "avatar": None, "bot": bot, "public_flags": 0}


BOT_USER = user_payload(BOT_ID, "studbot", bot=True)


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON as Discord sends it: discord.py wants exactly ``Content-Type: application/json``."""
    response = web.Response(text=json.dumps(data), status=status, headers=headers)
    response.headers["Content-Type"] = "application/json"
    return response


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard that receives a guild's events (Discord's formula); shard 0 for direct messages."""
    return 0 if guild_id is None else (guild_id >> 22) % count


class FakeGateway:
    """Shards over websockets, and the guilds (each with its text channels) they serve."""

    gateway_url: str

    def _init_gateway(self) -> None:
        self.shard_count = 1
        """What ``GET /gateway/bot`` recommends."""
        self.max_concurrency = 16
        """IDENTIFYs Discord allows at once (one per bucket ``shard_id % max_concurrency`` per 5 s)."""
        self.guilds: dict[int, list[int]] = {GUILD_ID: [CHANNEL_ID]}
        """guild id -> its text channels."""
        self.identified = asyncio.Event()
        """Set while at least one shard is connected and identified."""
        self.identify_count = 0
        self.identifies: list[tuple[int, int]] = []
        """The ``(shard id, shard count)`` of every IDENTIFY, in order ((0, 1) without a shard)."""
        self.gateway_queries: list[dict[str, str]] = []
        self.shard_events: list[tuple[int, str, str | None]] = []
        """(shard, event, guild id) of every event dispatched."""
        self._shards: dict[int, tuple[web.WebSocketResponse, int]] = {}
        self._seq = 0

    # ------------------------------------------------------------------ the guilds

    def add_guild(self, guild_id: int, channel_id: int) -> None:
        self.guilds.setdefault(guild_id, []).append(channel_id)

    def guild_of(self, channel_id: int) -> int | None:
        return next((g for g, channels in self.guilds.items() if channel_id in channels), None)

    @property
    def connected_shards(self) -> set[int]:
        return set(self._shards)

    def route(self, guild_id: int | None) -> int:
        """The shard a guild's events go to, with the count the connected shards declared."""
        counts = {count for _, count in self._shards.values()}
        assert len(counts) <= 1, f"the shards disagree on the shard count: {counts}"
        return shard_of(guild_id, counts.pop() if counts else 1)

    # ------------------------------------------------------------------ the websocket

    async def _gateway_info(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": {
            "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": self.max_concurrency}})

    async def _gateway_ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.gateway_queries.append(dict(request.query))
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None}))
        shard: int | None = None
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            op = data.get("op")
            if op == 1:
                await ws.send_str(json.dumps({"op": 11, "d": None}))
            elif op == 2:
                shard_id, count = (data.get("d") or {}).get("shard") or (0, 1)
                if not 0 <= shard_id < count:
                    await ws.close(code=INVALID_SHARD, message=b"Invalid shard")
                    break
                shard = shard_id
                await self._identify(ws, shard_id, count)
            elif op == 6:  # resume: not kept; identify again
                await ws.send_str(json.dumps({"op": 9, "d": False}))
        if shard is not None and self._shards.get(shard, (None, 0))[0] is ws:
            del self._shards[shard]
            if not self._shards:
                self.identified.clear()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, shard_id: int, count: int) -> None:
        self._shards[shard_id] = (ws, count)
        self.identify_count += 1
        self.identifies.append((shard_id, count))
        mine = [g for g in self.guilds if shard_of(g, count) == shard_id]
        await self._dispatch("READY", {
            "v": 10, "user": BOT_USER, "guilds": [{"id": str(g), "unavailable": True} for g in mine],
            "session_id": f"session-{self.identify_count}", "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APP_ID), "flags": 0}, "private_channels": [], "relationships": [],
            "shard": [shard_id, count],
        }, shard=shard_id)
        for guild in mine:
            await self._dispatch("GUILD_CREATE", self._guild(guild), shard=shard_id)
        self.identified.set()

    async def _dispatch(self, event: str, data: dict[str, Any], *, shard: int = 0) -> None:
        connected = self._shards.get(shard)
        assert connected is not None, f"the bot is not connected to the gateway (shard {shard})"
        self._seq += 1
        guild = data.get("guild_id") if event != "GUILD_CREATE" else data.get("id")
        self.shard_events.append((shard, event, guild))
        await connected[0].send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def _close_gateway(self) -> None:
        for ws, _ in list(self._shards.values()):
            await ws.close()

    # ------------------------------------------------------------------ payloads

    def _channel(self, channel_id: int = CHANNEL_ID) -> dict[str, Any]:
        guild = self.guild_of(channel_id)
        return {"id": str(channel_id), "type": 0, "guild_id": str(guild), "name": "poker", "position": 0,
                "permission_overwrites": [], "nsfw": False, "parent_id": None, "topic": None,
                "last_message_id": None, "rate_limit_per_user": 0}

    def _guild(self, guild_id: int = GUILD_ID) -> dict[str, Any]:
        return {
            "id": str(guild_id), "name": f"Card Room {guild_id % 1000}", "icon": None, "owner_id": "1",
            "unavailable": False, "member_count": 4, "large": False, "features": [], "emojis": [], "stickers": [],
            "roles": [{"id": str(guild_id), "name": "@everyone", "permissions": str(EVERYONE_PERMISSIONS),
                       "position": 0, "color": 0, "hoist": False, "managed": False, "mentionable": False,
                       "flags": 0}],
            "channels": [self._channel(c) for c in self.guilds.get(guild_id, [])], "threads": [], "members": [],
            "voice_states": [], "presences": [], "stage_instances": [], "guild_scheduled_events": [],
            "soundboard_sounds": [], "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
            "preferred_locale": "en-US", "system_channel_flags": 0, "joined_at": "2024-01-01T00:00:00+00:00",
        }
