"""A fake Telegram Bot API on loopback (aiohttp.web), for end-to-end tests of the Telegram adapter.

A real python-telegram-bot ``Application`` talks to it with
``base_url=f"http://127.0.0.1:{port}/bot"``. The test plays the users: it pushes
updates (commands as messages with a ``bot_command`` entity, button presses as
callback queries) which ``getUpdates`` hands out as a real long poll (honouring
``offset``, ``timeout`` and ``limit``). Every call is recorded with its time.

Like Telegram it answers:

- 403 "bot can't initiate conversation with a user" to a private message (or chat
  action) for a user who has not sent ``/start`` to the bot;
- 400 for callback data over 64 bytes (BUTTON_DATA_INVALID) and for an edit that
  changes nothing ("message is not modified");
- 429 with ``retry_after`` when the test asks for it (:meth:`FakeBotAPI.fail_next`).

Boards may be photos: ``sendPhoto``, ``editMessageMedia`` and ``editMessageCaption`` take
multipart uploads (``photo`` or ``attach://NAME``), keep the bytes in :attr:`FakeBotAPI.photos`
and check the caption's 1,024 characters; :func:`text_of` reads a message's text or caption.

Methods it does not know are recorded in ``unknown`` and answered 404: a test
should assert that list stays empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import itertools
import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from PIL import Image

log = logging.getLogger(__name__)

STRING_KEYS = {"text", "caption", "callback_query_id", "url", "parse_mode", "action", "secret_token", "language_code",
               "drop_pending_updates_str"}
NOT_MODIFIED = ("Bad Request: message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message")
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
MAX_CAPTION = 1024


FILENAMES = "_filenames"
"""The params key holding each uploaded field's file name (multipart)."""


@dataclass(frozen=True)
class Document:
    """A file the bot sent with ``sendDocument``."""

    chat_id: int
    message_id: int
    filename: str
    data: bytes
    caption: str


@dataclass
class Call:
    t: float
    method: str
    params: dict[str, Any]
    status: int = 200


class FakeBotAPI:
    def __init__(self, *, token: str = "123456:TEST-token", username: str = "studbot_test") -> None:
        self.token = token
        self.bot_user = {"id": int(token.split(":")[0]), "is_bot": True, "first_name": "Stud", "username": username,
                         "can_join_groups": True, "can_read_all_group_messages": False,
                         "supports_inline_queries": False}
        self.calls: list[Call] = []
        self.unknown: list[str] = []
        self.users: dict[int, dict[str, Any]] = {}
        self.started: set[int] = set()
        self.chats: dict[int, dict[str, Any]] = {}
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.photos: dict[tuple[int, int], bytes] = {}
        """The image each photo message shows now (PNG bytes as uploaded)."""
        self.documents: list[Document] = []
        """Every file sent with ``sendDocument`` (multipart upload), in order."""
        self._file_ids = itertools.count(1)
        self.updates: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.admins: set[tuple[int, int]] = set()
        self.outsiders: dict[tuple[int, int], str] = {}
        """(chat, user) -> 'left' or 'kicked': not in that group (every known user is a member otherwise)."""
        self.commands: list[dict[str, Any]] = []
        """The default command list (no language_code)."""
        self.commands_by_language: dict[str, list[dict[str, Any]]] = {}
        """Every command list set, by language_code ('' for the default)."""
        self.webhook: dict[str, Any] | None = None
        self.deliveries: list[tuple[int, int]] = []
        """(update id, HTTP status) of every update POSTed to the webhook."""
        self.routes: list[tuple[int, str, int]] = []
        """(update id, URL, HTTP status) of every POST to the webhook, retries included."""
        self.balancer: list[str] = []
        """The workers behind the webhook's URL (a load balancer's view): when set, updates are POSTed to
        them in turn instead of to the URL itself."""
        self._turn = itertools.count()
        self.pushed: dict[int, dict[str, Any]] = {}
        """Every update the users made, by update id."""
        self._deliveries: set[asyncio.Task[None]] = set()
        self._fail: dict[str, list[int]] = {}
        self._update_ids = itertools.count(1000)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._query_ids = itertools.count(1)
        self._arrived = asyncio.Event()
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.held_chats: set[int] = set()
        """Chats whose messages and edits hang (as if Telegram never answered) until :meth:`release`,
        then fail (503) without being stored."""
        self._release = asyncio.Event()

    # ------------------------------------------------------------------ server

    async def start(self) -> FakeBotAPI:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._endpoint)
        app.router.add_get("/bot{token}/{method}", self._endpoint)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        self._arrived.set()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    async def _endpoint(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        raw: dict[str, Any] = dict(await request.post()) if request.method == "POST" else dict(request.query)
        if request.content_type == "application/json":
            raw = await request.json()
        params = {k: v.file.read() if isinstance(v, web.FileField) else _decode(k, v) for k, v in raw.items()}
        params[FILENAMES] = {k: v.filename for k, v in raw.items() if isinstance(v, web.FileField)}
        call = Call(t=time.monotonic(), method=method, params=params)
        self.calls.append(call)
        retry = self._fail.get(method)
        if retry:
            call.status = 429
            self._changed.set()
            return _error(429, f"Too Many Requests: retry after {retry[0]}", parameters={"retry_after": retry.pop(0)})
        if method in BOARD_METHODS and _chat(params) in self.held_chats:
            call.status = 503
            await self._release.wait()  # a client killed meanwhile never learns; nothing is stored
            return _error(503, "Service Unavailable: held by the test")
        handler: Callable[[dict[str, Any]], Any] | None = getattr(self, "_m_" + method.lower(), None)
        if handler is None:
            self.unknown.append(method)
            log.error("fake Bot API: unknown method %s %r", method, params)
            call.status = 404
            return _error(404, f"Not Found: method {method} is not faked")
        try:
            result = await handler(params)
        except _ApiError as exc:
            call.status = exc.code
            self._changed.set()
            return _error(exc.code, exc.description)
        self._changed.set()
        return web.json_response({"ok": True, "result": result})

    # ------------------------------------------------------------------ methods

    async def _m_getme(self, p: dict[str, Any]) -> Any:
        return self.bot_user

    async def _m_deletewebhook(self, p: dict[str, Any]) -> Any:
        self.webhook = None
        return True

    async def _m_setwebhook(self, p: dict[str, Any]) -> Any:
        self.webhook = p
        return True

    async def _m_setmycommands(self, p: dict[str, Any]) -> Any:
        for c in p["commands"]:
            if not (1 <= len(c["command"]) <= 32 and c["command"].replace("_", "").isalnum()
                    and c["command"].islower() and 1 <= len(c["description"]) <= 256):
                raise _ApiError(400, f"Bad Request: BOT_COMMAND_INVALID {c}")
        language = p.get("language_code") or ""
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise _ApiError(400, f"Bad Request: invalid language code {language!r}")
        self.commands_by_language[language] = p["commands"]
        if not language:
            self.commands = p["commands"]
        return True

    async def _m_getmycommands(self, p: dict[str, Any]) -> Any:
        return self.commands_by_language.get(p.get("language_code") or "", self.commands)

    async def _m_getupdates(self, p: dict[str, Any]) -> Any:
        offset = int(p.get("offset") or 0)
        timeout = float(p.get("timeout") or 0)
        limit = int(p.get("limit") or 100)
        if offset:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
        deadline = time.monotonic() + timeout
        while not self.updates and time.monotonic() < deadline:
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                break
        return self.updates[:limit]

    async def _m_sendmessage(self, p: dict[str, Any]) -> Any:
        chat_id = int(p["chat_id"])
        self._check_private(chat_id)
        self._check_markup(p.get("reply_markup"))
        if not p.get("text") or len(p["text"]) > 4096 + 200:  # HTML tags do not count
            raise _ApiError(400, "Bad Request: message text is empty or too long")
        msg = self._message(chat_id, self.bot_user, p["text"], thread=p.get("message_thread_id"))
        if p.get("reply_markup"):
            msg["reply_markup"] = p["reply_markup"]
        self.messages[(chat_id, msg["message_id"])] = msg
        return msg

    async def _m_sendphoto(self, p: dict[str, Any]) -> Any:
        chat_id = int(p["chat_id"])
        self._check_private(chat_id)
        self._check_markup(p.get("reply_markup"))
        data = self._upload(p, p.get("photo"))
        caption = self._check_caption(p.get("caption"))
        msg = self._message(chat_id, self.bot_user, "", thread=p.get("message_thread_id"))
        del msg["text"]
        msg.update(self._photo(data, caption))
        if p.get("reply_markup"):
            msg["reply_markup"] = p["reply_markup"]
        self.messages[(chat_id, msg["message_id"])] = msg
        self.photos[(chat_id, msg["message_id"])] = data
        return msg

    async def _m_senddocument(self, p: dict[str, Any]) -> Any:
        chat_id = int(p["chat_id"])
        self._check_private(chat_id)
        ref = p.get("document")
        field = ref.removeprefix("attach://") if isinstance(ref, str) and ref.startswith("attach://") else "document"
        data = self._upload(p, ref)
        filename = str(p[FILENAMES].get(field) or "")
        caption = self._check_caption(p.get("caption"))
        msg = self._message(chat_id, self.bot_user, "", thread=p.get("message_thread_id"))
        del msg["text"]
        uid = f"doc{next(self._file_ids)}"
        msg.update({"document": {"file_id": uid, "file_unique_id": uid, "file_name": filename,
                                 "file_size": len(data)}, "caption": caption})
        self.messages[(chat_id, msg["message_id"])] = msg
        self.documents.append(Document(chat_id=chat_id, message_id=msg["message_id"], filename=filename, data=data,
                                       caption=caption))
        return msg

    async def _m_editmessagemedia(self, p: dict[str, Any]) -> Any:
        key = (int(p["chat_id"]), int(p["message_id"]))
        msg = self.messages.get(key)
        if msg is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if "photo" not in msg:
            raise _ApiError(400, "Bad Request: there is no media in the message to edit")
        self._check_markup(p.get("reply_markup"))
        media = p["media"]
        if media.get("type") != "photo":
            raise _ApiError(400, "Bad Request: MEDIA_INVALID")
        data = self._upload(p, media.get("media"))
        caption = self._check_caption(media.get("caption"))
        markup = p.get("reply_markup")
        if self.photos.get(key) == data and msg.get("caption") == caption and msg.get("reply_markup") == markup:
            raise _ApiError(400, NOT_MODIFIED)
        msg.update(self._photo(data, caption), edit_date=int(time.time()))
        self._markup(msg, markup)
        self.photos[key] = data
        return msg

    async def _m_editmessagecaption(self, p: dict[str, Any]) -> Any:
        key = (int(p["chat_id"]), int(p["message_id"]))
        msg = self.messages.get(key)
        if msg is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if "photo" not in msg:
            raise _ApiError(400, "Bad Request: there is no caption in the message to edit")
        self._check_markup(p.get("reply_markup"))
        caption = self._check_caption(p.get("caption"))
        markup = p.get("reply_markup")
        if msg.get("caption") == caption and msg.get("reply_markup") == markup:
            raise _ApiError(400, NOT_MODIFIED)
        msg["caption"], msg["edit_date"] = caption, int(time.time())
        self._markup(msg, markup)
        return msg

    def _upload(self, p: dict[str, Any], ref: Any) -> bytes:
        """The bytes of an uploaded file: the field itself, or ``attach://NAME``."""
        if isinstance(ref, str) and ref.startswith("attach://"):
            ref = p.get(ref.removeprefix("attach://"))
        if not isinstance(ref, bytes) or not ref:
            raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified (the fake wants an upload)")
        return ref

    @staticmethod
    def _check_caption(caption: Any) -> str:
        text = str(caption or "")
        if len(html.unescape(re.sub(r"<[^>]+>", "", text))) > MAX_CAPTION:
            raise _ApiError(400, "Bad Request: message caption is too long")
        return text

    def _photo(self, data: bytes, caption: str) -> dict[str, Any]:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
        uid = f"photo{next(self._file_ids)}"
        return {"photo": [{"file_id": uid, "file_unique_id": uid, "width": width, "height": height,
                           "file_size": len(data)}], "caption": caption}

    @staticmethod
    def _markup(msg: dict[str, Any], markup: Any) -> None:
        if markup:
            msg["reply_markup"] = markup
        else:
            msg.pop("reply_markup", None)

    async def _m_editmessagetext(self, p: dict[str, Any]) -> Any:
        key = (int(p["chat_id"]), int(p["message_id"]))
        msg = self.messages.get(key)
        if msg is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if "text" not in msg:
            raise _ApiError(400, "Bad Request: there is no text in the message to edit")
        self._check_markup(p.get("reply_markup"))
        markup = p.get("reply_markup")
        if msg["text"] == p["text"] and msg.get("reply_markup") == markup:
            raise _ApiError(400, NOT_MODIFIED)
        msg["text"] = p["text"]
        msg["edit_date"] = int(time.time())
        if markup:
            msg["reply_markup"] = markup
        else:
            msg.pop("reply_markup", None)
        return msg

    async def _m_editmessagereplymarkup(self, p: dict[str, Any]) -> Any:
        key = (int(p["chat_id"]), int(p["message_id"]))
        msg = self.messages.get(key)
        if msg is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        self._check_markup(p.get("reply_markup"))
        markup = p.get("reply_markup")
        if msg.get("reply_markup") == (markup or None):
            raise _ApiError(400, NOT_MODIFIED)
        self._markup(msg, markup)
        msg["edit_date"] = int(time.time())
        return msg

    async def _m_answercallbackquery(self, p: dict[str, Any]) -> Any:
        text = p.get("text") or ""
        if len(text) > 200:
            raise _ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.answers[str(p["callback_query_id"])] = p
        return True

    async def _m_sendchataction(self, p: dict[str, Any]) -> Any:
        self._check_private(int(p["chat_id"]))
        return True

    async def _m_getchatmember(self, p: dict[str, Any]) -> Any:
        chat_id, user_id = int(p["chat_id"]), int(p["user_id"])
        if user_id not in self.users:
            raise _ApiError(400, "Bad Request: user not found")
        status = "administrator" if (chat_id, user_id) in self.admins else "member"
        status = self.outsiders.get((chat_id, user_id), status)
        member: dict[str, Any] = {"status": status, "user": self.users[user_id]}
        if status == "kicked":
            member["until_date"] = 0
        if status == "administrator":
            member.update(can_be_edited=False, is_anonymous=False, can_manage_chat=True, can_delete_messages=True,
                          can_manage_video_chats=True, can_restrict_members=True, can_promote_members=False,
                          can_change_info=True, can_invite_users=True, can_post_stories=False,
                          can_edit_stories=False, can_delete_stories=False)
        return member

    def _check_private(self, chat_id: int) -> None:
        if chat_id > 0 and chat_id not in self.started:
            raise _ApiError(403, CANT_INITIATE)

    def _check_markup(self, markup: Any) -> None:
        for row in (markup or {}).get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode()) <= 64:
                    raise _ApiError(400, "Bad Request: BUTTON_DATA_INVALID")

    # ------------------------------------------------------------------ the test's side

    def user(self, uid: int, name: str, *, language_code: str | None = None) -> dict[str, Any]:
        """A user; ``language_code``: the language of their Telegram app ('pl', 'ru', 'en')."""
        self.users[uid] = {"id": uid, "is_bot": False, "first_name": name}
        if language_code:
            self.users[uid]["language_code"] = language_code
        return self.users[uid]

    def leave(self, chat_id: int, uid: int, *, banned: bool = False) -> None:
        """The user is no longer in the group (left it, or was banned): getChatMember says so."""
        self.outsiders[(chat_id, uid)] = "kicked" if banned else "left"

    def group(self, chat_id: int, title: str = "Stud night", *, forum: bool = False) -> dict[str, Any]:
        self.chats[chat_id] = {"id": chat_id, "type": "supergroup", "title": title}
        if forum:
            self.chats[chat_id]["is_forum"] = True
        return self.chats[chat_id]

    def release(self) -> None:
        """Stop holding chats: what was held fails unstored; new calls go through."""
        self.held_chats.clear()
        self._release.set()
        self._release = asyncio.Event()

    def fail_next(self, method: str, *, retry_after: int = 1, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 Too Many Requests."""
        self._fail.setdefault(method, []).extend([retry_after] * times)

    def command(self, chat_id: int, uid: int, text: str, *, thread: int | None = None) -> int:
        """A user types ``text`` (a command) in a chat; returns the message id."""
        if chat_id == uid and text.split()[0].split("@")[0] == "/start":
            self.started.add(uid)
        head = text.split()[0]
        msg = self._message(chat_id, self.users[uid], text, thread=thread)
        msg["entities"] = [{"type": "bot_command", "offset": 0, "length": len(head)}]
        self._push({"message": msg})
        return int(msg["message_id"])

    def press(self, chat_id: int, message_id: int, uid: int, *, label: str | None = None,
              data: str | None = None) -> str:
        """A user presses a button (by its label, or with made-up data); returns the query id."""
        msg = self.messages[(chat_id, message_id)]
        if data is None:
            assert label is not None
            data = next(b["callback_data"] for row in msg["reply_markup"]["inline_keyboard"] for b in row
                        if b["text"] == label and "callback_data" in b)
        qid = f"q{next(self._query_ids)}"
        self._push({"callback_query": {"id": qid, "from": self.users[uid], "message": json.loads(json.dumps(msg)),
                                       "chat_instance": f"ci{chat_id}", "data": data}})
        return qid

    async def answer(self, qid: str, timeout: float = 10.0) -> dict[str, Any]:
        await self.wait_for(lambda: qid in self.answers, timeout=timeout, what=f"an answer to {qid}")
        return self.answers[qid]

    async def wait_for(self, predicate: Callable[[], Any], *, timeout: float = 10.0, what: str = "a condition") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"fake Bot API: timed out waiting for {what}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(0.05, max(0.0, deadline - time.monotonic())))

    # ------------------------------------------------------------------ reading what happened

    def sent(self, method: str | None = None, *, chat_id: int | None = None, ok: bool = True) -> list[Call]:
        return [c for c in self.calls if (method is None or c.method == method)
                and (chat_id is None or int(c.params.get("chat_id", 0)) == chat_id)
                and (not ok or c.status == 200)]

    def private_texts(self, uid: int) -> list[str]:
        """Every private message's text, and every private photo's caption."""
        return [text_of_call(c) for c in self.sent(chat_id=uid) if c.method in ("sendMessage", "sendPhoto")]

    def photos_in(self, chat_id: int) -> list[bytes]:
        """Every image the chat has shown (boards, as first sent and as edited)."""
        out = [data for (chat, _), data in sorted(self.photos.items()) if chat == chat_id]
        for call in self.sent("editMessageMedia", chat_id=chat_id):
            ref = (call.params.get("media") or {}).get("media")
            if isinstance(ref, str) and ref.startswith("attach://"):
                out.append(call.params.get(ref.removeprefix("attach://")))
        return out

    def private_photos(self, uid: int) -> list[bytes]:
        """The images the bot sent the user privately (their cards)."""
        return [data for (chat, _), data in sorted(self.photos.items()) if chat == uid]

    def group_texts(self, chat_id: int) -> list[str]:
        """Every text and caption the bot sent (or edited in) the chat."""
        return [text_of_call(c) for c in self.calls if c.method in BOARD_METHODS
                and int(c.params.get("chat_id", 0)) == chat_id and c.status == 200]

    def board_edits(self, chat_id: int, *, ok: bool = True) -> list[Call]:
        """Edits of boards, whatever the view (text, caption, or image and caption)."""
        return [c for c in self.sent(chat_id=chat_id, ok=ok) if c.method in EDIT_METHODS]

    def boards(self, chat_id: int) -> list[dict[str, Any]]:
        """The chat's messages with callback buttons (boards), oldest first."""
        return [m for (c, _), m in sorted(self.messages.items()) if c == chat_id
                and any("callback_data" in b for row in m.get("reply_markup", {}).get("inline_keyboard", [])
                        for b in row)]

    def board(self, chat_id: int) -> dict[str, Any]:
        boards = self.boards(chat_id)
        assert boards, "no board in the chat"
        return boards[-1]

    # ------------------------------------------------------------------ helpers

    def _message(self, chat_id: int, sender: dict[str, Any], text: str, *, thread: Any = None) -> dict[str, Any]:
        ids = self._message_ids.setdefault(chat_id, itertools.count(1))
        chat = self.chats.get(chat_id) or {"id": chat_id, "type": "private",
                                           "first_name": self.users.get(chat_id, {}).get("first_name", "?")}
        msg: dict[str, Any] = {"message_id": next(ids), "date": int(time.time()), "chat": chat, "from": sender,
                               "text": text}
        if thread:
            msg["message_thread_id"] = int(thread)
            msg["is_topic_message"] = True
        return msg

    def _push(self, update: dict[str, Any]) -> None:
        update["update_id"] = next(self._update_ids)
        self.pushed[update["update_id"]] = update
        if self.webhook is not None:  # like Telegram: a webhook set, updates are POSTed to it
            task = asyncio.get_running_loop().create_task(self._deliver(update))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)
            return
        self.updates.append(update)
        self._arrived.set()

    async def _deliver(self, update: dict[str, Any], to: str | None = None) -> int:
        assert self.webhook is not None
        headers = {}
        if self.webhook.get("secret_token"):
            headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
        if to is None:
            to = self.balancer[next(self._turn) % len(self.balancer)] if self.balancer else str(self.webhook["url"])
        async with aiohttp.ClientSession() as session, session.post(to, json=update, headers=headers) as response:
            self.deliveries.append((update["update_id"], response.status))
            self.routes.append((update["update_id"], to, response.status))
        self._changed.set()
        return response.status

    async def deliver_again(self, update_id: int, *, to: str | None = None) -> int:
        """Telegram's retry: POST an update already delivered once more (to the next worker, or to ``to``);
        the HTTP status."""
        return await self._deliver(self.pushed[update_id], to)

    async def delivered(self, update_id: int, *, times: int = 1) -> None:
        """Wait until the webhook has answered ``times`` POSTs of the update."""
        await self.wait_for(lambda: sum(1 for u, _ in self.deliveries if u == update_id) >= times,
                            what=f"{times} deliveries of update {update_id}")


BOARD_METHODS = ("sendMessage", "editMessageText", "sendPhoto", "editMessageMedia", "editMessageCaption")
EDIT_METHODS = ("editMessageText", "editMessageMedia", "editMessageCaption")


def _chat(params: dict[str, Any]) -> int | None:
    try:
        return int(params.get("chat_id", 0))
    except (TypeError, ValueError):
        return None


def text_of(message: dict[str, Any]) -> str:
    """A message's text, or its caption (a photo): what a reader sees, whatever the board's view."""
    return str(message.get("text") or message.get("caption") or "")


def text_of_call(call: Call) -> str:
    p = call.params
    if call.method == "editMessageMedia":
        return str((p.get("media") or {}).get("caption") or "")
    return str(p.get("text") or p.get("caption") or "")


class _ApiError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code, self.description = code, description


def _error(code: int, description: str, *, parameters: dict[str, Any] | None = None) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=code)


def _decode(key: str, value: Any) -> Any:
    if not isinstance(value, str) or key in STRING_KEYS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value
