"""A loopback Discord: the gateway websocket and the REST routes the bot uses, on 127.0.0.1.

The real discord.py client talks to it (``DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10``,
``DISCORD_GATEWAY_URL=ws://127.0.0.1:PORT/gateway``). It records every REST call,
keeps the channel messages (with their versions and attached files: multipart
``payload_json`` + ``files[n]`` uploads are read, see :class:`Attachment`), DMs and interaction answers, and
injects what tests need: users whose DMs are closed (403, code 50007), 429s on the
next board edits, slow DMs, and Discord's 3-second rule (a callback later than
that gets 404 Unknown interaction, code 10062).

Tests act as users: :meth:`FakeDiscord.slash` runs ``/stud <sub> [options]``,
:meth:`FakeDiscord.press` presses a button of a message (as the message stands
now, or as it stood in an older version: a stale press).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .discord_gateway import (
    APP_ID,
    BOT_USER,
    CHANNEL_ID,
    EVERYONE_PERMISSIONS,
    GUILD_ID,
    OTHER_CHANNEL_ID,
    OTHER_GUILD_ID,
    FakeGateway,
)
from .discord_gateway import json_response as _json
from .discord_gateway import user_payload as _user

__all__ = ["APP_ID", "CHANNEL_ID", "GUILD_ID", "OTHER_CHANNEL_ID", "OTHER_GUILD_ID", "Attachment", "Call",
           "FakeDiscord", "Interaction", "Posted"]

MANAGE_GUILD = 1 << 5
EPHEMERAL = 1 << 6
LOADING = 1 << 7
"""A deferred answer still 'thinking' (the flag of an original response not edited yet)."""
UNKNOWN_MESSAGE = 10008


BODY = web.RequestKey("json", object)
FILES = web.RequestKey("files", list)


@dataclass
class Attachment:
    """A file uploaded with a message (multipart ``files[n]``)."""

    field: str
    filename: str
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass
class Call:
    """One REST call as the fake received it."""

    at: float
    method: str
    path: str
    body: Any
    status: int = 200
    query: dict[str, str] = field(default_factory=dict)
    files: list[Attachment] = field(default_factory=list)


@dataclass
class Posted:
    """One version of a channel message (a post or an edit), as sent."""

    at: float
    channel: int
    message_id: int
    kind: str  # 'post' or 'edit'
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[Attachment] = field(default_factory=list)
    """The files the message shows after this version (new uploads, or the ones kept)."""

    @property
    def image(self) -> bytes | None:
        """The board image (``board.png``) this version shows, if any."""
        return next((a.data for a in self.attachments if a.filename == "board.png"), None)

    @property
    def text(self) -> str:
        parts = [self.content]
        for embed in self.embeds:
            parts += [str(embed.get("title", "")), str(embed.get("description", ""))]
        return "\n".join(p for p in parts if p)

    @property
    def folded(self) -> list[str] | None:
        """The lines folded into a board's embed (its blank-named field), or None (no board)."""
        if not self.embeds:
            return None
        fields = [f for e in self.embeds for f in e.get("fields") or [] if f.get("name") == "\u200b"]
        return [ln for f in fields for ln in str(f.get("value", "")).splitlines()]

    @property
    def footer(self) -> str:
        """The embed's footer (the board's: the deck's short commitment), or ''."""
        return next((str(e["footer"].get("text", "")) for e in self.embeds if isinstance(e.get("footer"), dict)), "")

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for row in self.components for c in row.get("components", []) if "custom_id" in c]


@dataclass
class Interaction:
    """An interaction the fake dispatched, and what the bot answered."""

    id: int
    token: str
    user: int
    sent_at: float
    custom_id: str | None = None
    callback_at: float | None = None
    callback: dict[str, Any] | None = None
    callback_status: int | None = None
    answers: list[tuple[float, str, str, bool]] = field(default_factory=list)
    """(time, 'message'|'edit'|'delete'|'followup', content, ephemeral)."""
    files: list[tuple[Attachment, bool]] = field(default_factory=list)
    """Files uploaded with an answer (multipart ``files[n]``), each with whether that answer was ephemeral."""
    done: asyncio.Event = field(default_factory=asyncio.Event)
    deleted: bool = False
    """The original response was deleted: from then on it is 404 Unknown Message, as on Discord."""
    message_id: int | None = None
    """The message whose button was pressed (a component interaction)."""

    @property
    def update(self) -> bool:
        """Deferred as an update of the pressed message (type 6): its original response *is* that message."""
        return self.callback is not None and self.callback.get("type") in (6, 7) and self.message_id is not None

    @property
    def private(self) -> bool:
        """Nothing this interaction answered is public: ephemeral, or an update whose follow-ups are ephemeral."""
        return self.ephemeral or (self.update and all(eph for _, _, _, eph in self.answers))

    @property
    def original_exists(self) -> bool:
        return self.callback is not None and not self.deleted

    @property
    def loading(self) -> bool:
        """The original response is the deferred 'thinking' message, not edited yet."""
        return (self.original_exists and (self.callback or {}).get("type") == 5
                and not any(kind == "edit" for _, kind, _, _ in self.answers))

    @property
    def ephemeral(self) -> bool:
        return bool(self.callback and int((self.callback.get("data") or {}).get("flags", 0)) & EPHEMERAL)

    @property
    def content(self) -> str:
        return self.answers[-1][2] if self.answers else ""

    async def answer(self, timeout: float = 10.0) -> str:
        """The answer's text ('' if the bot removed the 'thinking' message)."""
        await asyncio.wait_for(self.done.wait(), timeout)
        return self.content


class FakeDiscord(FakeGateway):
    def __init__(self) -> None:
        self.app = web.Application()
        self.app.add_routes([
            web.get("/gateway", self._gateway_ws),
            web.get("/api/v10/gateway", self._gateway_info),
            web.get("/api/v10/gateway/bot", self._gateway_info),
            web.get("/api/v10/users/@me", self._me),
            web.get("/api/v10/oauth2/applications/@me", self._application),
            web.get("/api/v10/applications/@me", self._application),
            web.put("/api/v10/applications/{app}/commands", self._sync_commands),
            web.put("/api/v10/applications/{app}/guilds/{guild}/commands", self._sync_commands),
            web.post("/api/v10/interactions/{id}/{token}/callback", self._callback),
            web.post("/api/v10/webhooks/{app}/{token}", self._followup),
            web.get("/api/v10/webhooks/{app}/{token}/messages/@original", self._get_original),
            web.patch("/api/v10/webhooks/{app}/{token}/messages/@original", self._edit_original),
            web.delete("/api/v10/webhooks/{app}/{token}/messages/@original", self._delete_original),
            web.post("/api/v10/users/@me/channels", self._create_dm),
            web.post("/api/v10/channels/{channel}/messages", self._post_message),
            web.patch("/api/v10/channels/{channel}/messages/{message}", self._edit_message),
        ])
        self.app.middlewares.append(self._record)
        self.calls: list[Call] = []
        self.posted: list[Posted] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.files: dict[int, list[Attachment]] = {}
        """The files each channel message shows now."""
        self.dms: dict[int, list[str]] = {}
        self.dm_files: dict[int, list[Attachment]] = {}
        """The files sent to each user privately (their cards as pictures)."""
        self.dm_channels: dict[int, int] = {}
        self.interactions: dict[str, Interaction] = {}
        self.updates: dict[int, list[Interaction]] = {}
        """Presses deferred as updates of a message, not yet seen through (the next version of it ends them)."""
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.users: dict[int, str] = {}
        self.guild_locale = "en-US"
        """The server's language (interactions carry it as guild_locale)."""
        # injections
        self.dms_closed: set[int] = set()
        self.edit_429s = 0
        self.retry_after = 0.3
        self.dm_delay = 0.0
        self.interaction_deadline = 3.0
        self.token_lifetime = 15 * 60.0
        """Seconds an interaction's token may edit its message (Discord: 15 minutes)."""
        self.token_edits = 0
        """Board edits made through a press's token (interaction endpoints)."""
        self.held: set[str] = set()
        """Requests that hang (as if Discord never answered) until :meth:`release`, then fail unstored:
        'channel' (posts and edits of channel messages), 'answer' (an interaction's answer)."""
        self.held_calls: list[Call] = []
        self.hang_applied: set[str] = set()
        """Requests applied whose response then hangs until :meth:`release` (a client killed meanwhile
        never learns that they went through): 'answer' (an edit or a deletion of an original response)."""
        self._release = asyncio.Event()
        self._init_gateway()
        self._ids = itertools.count(800000000000000000)
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        await self._close_gateway()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def new_id(self) -> int:
        return next(self._ids)

    # ------------------------------------------------------------------ recording

    @web.middleware
    async def _record(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path == "/gateway":
            result: web.StreamResponse = await handler(request)
            return result
        body: Any = None
        files: list[Attachment] = []
        if request.content_type == "multipart/form-data":  # payload_json + files[n], as discord.py uploads
            form = await request.post()
            for name, value in form.items():
                if name == "payload_json":
                    body = json.loads(str(value))
                elif isinstance(value, web.FileField):
                    files.append(Attachment(field=name, filename=value.filename, data=value.file.read()))
        elif request.can_read_body:
            raw = await request.read()
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
        request[BODY] = body
        request[FILES] = files
        call = Call(at=time.monotonic(), method=request.method, path=request.path.removeprefix("/api/v10"),
                    body=body, query=dict(request.query), files=files)
        self.calls.append(call)
        response = await handler(request)
        call.status = response.status
        return response

    # ------------------------------------------------------------------ acting as users

    def user(self, user_id: int, name: str) -> int:
        self.users[user_id] = name
        return user_id

    def _member(self, user_id: int, *, admin: bool) -> dict[str, Any]:
        permissions = EVERYONE_PERMISSIONS | (MANAGE_GUILD if admin else 0)
        return {"user": _user(user_id, self.users.get(user_id, f"user{user_id}")), "roles": [], "nick": None,
                "avatar": None, "joined_at": "2024-01-01T00:00:00+00:00", "deaf": False, "mute": False,
                "flags": 0, "pending": False, "permissions": str(permissions)}

    async def _interact(self, user: int, type_: int, data: dict[str, Any], *, admin: bool = False,
                        message: dict[str, Any] | None = None, custom_id: str | None = None,
                        channel: int = CHANNEL_ID, dm: bool = False, locale: str = "en-US") -> Interaction:
        """Dispatch an interaction on the shard of the channel's guild (a direct message's: on shard 0)."""
        interaction_id = self.new_id()
        token = f"tok{interaction_id}"
        record = Interaction(id=interaction_id, token=token, user=user, sent_at=time.monotonic(),
                             custom_id=custom_id, message_id=int(message["id"]) if message is not None else None)
        self.interactions[token] = record
        guild = None if dm else self.guild_of(channel)
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(APP_ID), "type": type_, "token": token, "version": 1,
            "channel_id": str(channel), "data": data, "app_permissions": str(EVERYONE_PERMISSIONS),
            "locale": locale, "entitlements": [], "attachment_size_limit": 8388608,
        }
        if guild is None:  # in the user's direct messages with the bot
            payload.update(user=_user(user, self.users.get(user, f"user{user}")), context=1,
                           channel={"id": str(channel), "type": 1, "recipients": [_user(user, self.users.get(
                               user, f"user{user}"))]}, authorizing_integration_owners={"0": "0"})
        else:
            payload.update(guild_id=str(guild), channel=self._channel(channel), member=self._member(user, admin=admin),
                           guild_locale=self.guild_locale, context=0,
                           authorizing_integration_owners={"0": str(guild)})
        if message is not None:
            payload["message"] = message
        await self._dispatch("INTERACTION_CREATE", payload, shard=self.route(guild))
        return record

    async def slash(self, user: int, sub: str, *, admin: bool = False, locale: str = "en-US",
                    channel: int = CHANNEL_ID, dm: bool = False, **options: int | str) -> Interaction:
        """``/stud sub option=value...`` typed by ``user`` (whose Discord speaks ``locale``) in ``channel``
        (the test channel), or with ``dm`` in their direct messages with the bot (global commands only)."""
        guild = None if dm else self.guild_of(channel)
        if dm:
            channel = self.dm_channels.setdefault(user, self.new_id())
        scope = f"guild:{guild}" if f"guild:{guild}" in self.commands else "global"
        stud = next(c for c in self.commands.get(scope, []) if c["name"] == "stud")
        spec = next(o for o in stud["options"] if o["name"] == sub)
        typed = {o["name"]: o["type"] for o in spec.get("options", [])}
        data: dict[str, Any] = {"id": stud["id"], "name": "stud", "type": 1, "options": [
            {"name": sub, "type": 1, "options": [{"name": k, "type": typed[k], "value": v}
                                                 for k, v in options.items()]}]}
        if scope != "global":
            data["guild_id"] = str(guild)
        return await self._interact(user, 2, data, admin=admin, locale=locale, channel=channel, dm=dm)

    async def press(self, user: int, custom_id: str, *, message_id: int | None = None,
                    version: Posted | None = None, locale: str = "en-US") -> Interaction:
        """Press a button: of the message as it stands now, or of an older ``version`` of it."""
        if version is not None:
            message = dict(self.messages[version.message_id], components=version.components,
                           embeds=version.embeds)
        else:
            assert message_id is not None
            message = self.messages[message_id]
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._interact(user, 3, data, message=message, custom_id=custom_id, locale=locale,
                                    channel=int(message["channel_id"]))

    def delete_message(self, message_id: int) -> None:
        """A moderator deletes a message (edits of it get 404 Unknown Message from now on)."""
        del self.messages[message_id]

    def release(self) -> None:
        """Stop holding: requests held so far fail (503) without being stored; new ones go through."""
        self.held.clear()
        self.hang_applied.clear()
        self._release.set()
        self._release = asyncio.Event()

    async def _held(self, request: web.Request, kind: str) -> web.Response | None:
        if kind not in self.held:
            return None
        self.held_calls.append(self.calls[-1])
        await self._release.wait()  # a client killed meanwhile never learns; nothing is stored
        return _error(503, 0, "held by the test")

    async def _hang_applied(self, kind: str) -> None:
        if kind in self.hang_applied:
            await self._release.wait()

    def original_calls(self, record: Interaction) -> list[Call]:
        """The calls on an interaction's original response (GET, PATCH, DELETE), in order."""
        return [c for c in self.calls if c.path.endswith(f"/{record.token}/messages/@original")]

    # ------------------------------------------------------------------ queries for tests

    def channel_posts(self, channel: int = CHANNEL_ID) -> list[Posted]:
        return [p for p in self.posted if p.channel == channel]

    def board(self, channel: int = CHANNEL_ID) -> Posted | None:
        """The latest version of the latest message with buttons (the board) in the channel."""
        boards = [p for p in self.channel_posts(channel) if p.embeds]
        if not boards:
            return None
        last_id = boards[-1].message_id
        return [p for p in boards if p.message_id == last_id][-1]

    def lines(self, channel: int = CHANNEL_ID) -> str:
        """The channel's public lines in order: messages of their own, and the lines folded into the boards'
        embeds (a field of the board: each version shows the latest few; only the new ones are taken)."""
        out: list[str] = []
        shown: dict[int, list[str]] = {}
        for post in self.channel_posts(channel):
            if post.content:
                out.append(post.content)
            folded = post.folded
            if folded is None:
                continue
            before = shown.get(post.message_id, [])
            overlap = next((j for j in range(min(len(before), len(folded)), 0, -1) if before[-j:] == folded[:j]), 0)
            out.extend(folded[overlap:])
            shown[post.message_id] = folded
        return "\n".join(out)

    def channel_calls(self, channel: int = CHANNEL_ID) -> list[Call]:
        prefix = f"/channels/{channel}/messages"
        return [c for c in self.calls if c.path.startswith(prefix) and c.method in ("POST", "PATCH")]

    # ------------------------------------------------------------------ REST

    async def _me(self, request: web.Request) -> web.Response:
        return _json(BOT_USER)

    async def _application(self, request: web.Request) -> web.Response:
        return _json({
            "id": str(APP_ID), "name": "studbot", "icon": None, "description": "", "summary": "",
            "bot_public": True, "bot_require_code_grant": False, "owner": _user(1, "owner"), "verify_key": "00",
            "flags": 0, "team": None, "bot": BOT_USER, "rpc_origins": [], "tags": [], "redirect_uris": [],
            "interactions_endpoint_url": None,
        })

    async def _sync_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        scope = f"guild:{guild}" if guild else "global"
        commands = []
        for command in request[BODY] or []:
            commands.append({**command, "id": str(self.new_id()), "application_id": str(APP_ID),
                             "version": "1", "guild_id": guild, "default_member_permissions": None,
                             "nsfw": False, "dm_permission": True})
        self.commands[scope] = commands
        return _json(commands)

    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["token"])
        if record is None:
            return _error(404, 10062, "Unknown interaction")
        now = time.monotonic()
        if record.callback is not None:
            return _error(400, 40060, "Interaction has already been acknowledged.")
        if now - record.sent_at > self.interaction_deadline:
            record.callback_status = 404
            return _error(404, 10062, "Unknown interaction")
        record.callback_at, record.callback, record.callback_status = now, request[BODY], 204
        body = request[BODY] or {}
        if body.get("type") == 4:  # answered at once with a message (no 'thinking' first)
            data = body.get("data") or {}
            record.answers.append((now, "message", data.get("content") or "", record.ephemeral))
            record.done.set()
        if body.get("type") == 6 and record.message_id is not None:
            self.updates.setdefault(record.message_id, []).append(record)
        return _json({"interaction": {
            "id": str(record.id), "type": 3 if record.custom_id else 2,
            "response_message_loading": body.get("type") == 5,
            "response_message_ephemeral": record.ephemeral}, "resource": {"type": body.get("type", 5)}})

    def _webhook_message(self, record: Interaction, content: str, flags: int) -> dict[str, Any]:
        return self._message_payload(self.new_id(), CHANNEL_ID, content, [], [], flags=flags,
                                     webhook_id=str(APP_ID), interaction_token=record.token)

    async def _followup(self, request: web.Request) -> web.Response:
        if (held := await self._held(request, "answer")) is not None:
            return held
        record = self.interactions.get(request.match_info["token"])
        if record is None or record.callback is None:
            return _error(404, 10015, "Unknown Webhook")
        body = request[BODY] or {}
        flags = int(body.get("flags", 0))
        record.answers.append((time.monotonic(), "followup", body.get("content") or "", bool(flags & EPHEMERAL)))
        record.files += [(f, bool(flags & EPHEMERAL)) for f in request[FILES]]
        record.done.set()
        return _json(self._webhook_message(record, body.get("content") or "", flags))

    async def _get_original(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["token"])
        if record is not None and record.update and record.message_id is not None:  # the pressed message itself
            if record.message_id not in self.messages:
                return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
            return _json(self.messages[record.message_id])
        if record is None or not record.original_exists:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        flags = (EPHEMERAL if record.ephemeral else 0) | (LOADING if record.loading else 0)
        return _json(self._webhook_message(record, record.content, flags))

    async def _edit_original(self, request: web.Request) -> web.Response:
        if (held := await self._held(request, "answer")) is not None:
            return held
        record = self.interactions.get(request.match_info["token"])
        if record is not None and record.update and record.message_id is not None:  # edits the pressed message
            if time.monotonic() - record.sent_at > self.token_lifetime:
                return _error(401, 50027, "Invalid Webhook Token")
            message = self.messages.get(record.message_id)
            if message is None:
                return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
            self.token_edits += 1
            return _json(self._apply_edit(int(message["channel_id"]), record.message_id, request))
        if record is None or not record.original_exists:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        body = request[BODY] or {}
        record.answers.append((time.monotonic(), "edit", body.get("content") or "", record.ephemeral))
        record.files += [(f, record.ephemeral) for f in request[FILES]]
        record.done.set()
        await self._hang_applied("answer")
        return _json(self._webhook_message(record, body.get("content") or "",
                                                       EPHEMERAL if record.ephemeral else 0))

    async def _delete_original(self, request: web.Request) -> web.Response:
        if (held := await self._held(request, "answer")) is not None:
            return held
        record = self.interactions.get(request.match_info["token"])
        if record is None or not record.original_exists:
            return _error(404, UNKNOWN_MESSAGE, "Unknown Message")
        record.deleted = True
        record.answers.append((time.monotonic(), "delete", "", record.ephemeral))
        record.done.set()
        await self._hang_applied("answer")
        return web.Response(status=204)

    async def _create_dm(self, request: web.Request) -> web.Response:
        user = int((request[BODY] or {})["recipient_id"])
        channel = self.dm_channels.get(user)
        if channel is None:
            channel = self.dm_channels[user] = self.new_id()
        return _json({"id": str(channel), "type": 1, "last_message_id": None, "flags": 0,
                                  "recipients": [_user(user, self.users.get(user, f"user{user}"))]})

    def _message_payload(self, message_id: int, channel: int, content: str, embeds: list[dict[str, Any]],
                         components: list[dict[str, Any]], *, flags: int = 0, **extra: Any) -> dict[str, Any]:
        return {"id": str(message_id), "channel_id": str(channel), "author": BOT_USER, "content": content,
                "timestamp": "2024-01-01T00:00:00+00:00", "edited_timestamp": None, "tts": False,
                "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
                "embeds": embeds, "pinned": False, "type": 0, "flags": flags, "components": components, **extra}

    async def _post_message(self, request: web.Request) -> web.Response:
        channel = int(request.match_info["channel"])
        body = request[BODY] or {}
        dm_user = next((u for u, c in self.dm_channels.items() if c == channel), None)
        if dm_user is not None:
            if self.dm_delay:
                await asyncio.sleep(self.dm_delay)
            if dm_user in self.dms_closed:
                return _error(403, 50007, "Cannot send messages to this user")
            self.dms.setdefault(dm_user, []).append(body.get("content") or "")
            self.dm_files.setdefault(dm_user, []).extend(list(request[FILES]))
            return _json(self._message_payload(self.new_id(), channel, body.get("content") or "",
                                                           [], []))
        if (held := await self._held(request, "channel")) is not None:
            return held
        message_id = self.new_id()
        return _json(self._store(channel, message_id, body, kind="post", files=list(request[FILES])))

    async def _edit_message(self, request: web.Request) -> web.Response:
        if (held := await self._held(request, "channel")) is not None:
            return held
        channel, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        if message_id not in self.messages:
            return _error(404, 10008, "Unknown Message")
        if self.edit_429s > 0:
            self.edit_429s -= 1
            return _json(
                {"message": "You are being rate limited.", "retry_after": self.retry_after, "global": False},
                status=429, headers={"Via": "1.1 google", "Retry-After": str(self.retry_after),
                                     "X-RateLimit-Scope": "user", "X-RateLimit-Limit": "5",
                                     "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(self.retry_after),
                                     "X-RateLimit-Bucket": "fake-edit"})
        return _json(self._apply_edit(channel, message_id, request))

    def _apply_edit(self, channel: int, message_id: int, request: web.Request) -> dict[str, Any]:
        """A channel message edited (by the bot, or through the token of a press on it)."""
        body = request[BODY] or {}
        old = self.messages[message_id]
        merged = {"content": body.get("content", old["content"]), "embeds": body.get("embeds", old["embeds"]),
                  "components": body.get("components", old["components"])}
        kept: list[Attachment] = self.files.get(message_id, [])
        if "attachments" in body:  # like Discord: the list names the files kept (by id) and the new ones
            old_ids = {str(a["id"]) for a in old.get("attachments", [])}
            kept = [f for f, a in zip(kept, old.get("attachments", []), strict=False)
                    if str(a["id"]) in {str(x.get("id")) for x in body["attachments"]} & old_ids]
            kept += list(request[FILES])
        return self._store(channel, message_id, merged, kind="edit", files=kept)

    def _store(self, channel: int, message_id: int, body: dict[str, Any], *, kind: str,
               files: list[Attachment] | None = None) -> dict[str, Any]:
        content = body.get("content") or ""
        embeds = list(body.get("embeds") or [])
        components = [dict(row, id=i + 1) for i, row in enumerate(body.get("components") or [])]
        files = files or []
        attachments = [{"id": str(self.new_id()), "filename": f.filename, "size": f.size,
                        "url": f"https://cdn.example/{f.filename}", "proxy_url": f"https://cdn.example/{f.filename}"}
                       for f in files]
        payload = self._message_payload(message_id, channel, content, embeds, components)
        payload["attachments"] = attachments
        self.messages[message_id] = payload
        self.files[message_id] = files
        self.posted.append(Posted(at=time.monotonic(), channel=channel, message_id=message_id, kind=kind,
                                  content=content, embeds=embeds, components=components, attachments=files))
        for record in self.updates.pop(message_id, []):  # a press deferred as its update: seen through
            record.done.set()
        return payload


def _error(status: int, code: int, message: str) -> web.Response:
    return _json({"message": message, "code": code}, status=status)
