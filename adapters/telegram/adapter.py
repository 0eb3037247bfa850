"""The Telegram adapter: python-telegram-bot ~=22 in, :class:`~bot.service.StudBot` behind.

- Commands: ``/stud <command ...>`` for every command of the grammar, and the short
  forms (``/join``, ``/fold``, ``/call`` ...; ``/join@botname`` too), registered with
  setMyCommands. Privacy mode may stay on: commands reach bots anyway.
- One table per group, or per forum topic (``Inbound.channel`` is ``"chat"`` or
  ``"chat:topic"``; ``Inbound.community`` is the chat id).
- One board message per hand, edited in place, with the legal actions as inline
  buttons (callback data ``s|call|12.7``: the table is the chat the button lives in).
  With the table's view "image" (the default) the message is a photo of the board with
  the text board as its caption (1,024 characters: the oldest folded lines go first);
  edits use editMessageMedia, or editMessageCaption when the picture did not change.
  With view "text" it is a text message; a change of view posts a new message.
  The table's public lines are folded into that message (the latest few under the
  board), so one flush of the outbox is one edit; a hand's final board stays in the
  chat, and the next hand starts a new message.
- Private cards go to the player's private chat. A user who never started the bot
  gets a deep link (``https://t.me/<bot>?start=<payload>``) that finishes the join
  there; until then *My cards* shows the cards in an alert only they can see.
- Long polling, or a webhook (aiohttp) when ``TELEGRAM_WEBHOOK_URL`` is set: it listens on
  ``TELEGRAM_WEBHOOK_LISTEN`` (0.0.0.0) port ``TELEGRAM_WEBHOOK_PORT`` (or ``PORT``, or 8443)
  at the URL's path, and checks Telegram's secret token (derived from the bot token).
  ``TELEGRAM_BASE_URL`` points the bot at a local Bot API server (``http://host:8081``).
- Rate limits: AIORateLimiter (30/s overall, 20/min per group, retries on 429), and the
  bootstrap's outbox flushes a table at most once per :attr:`TelegramAdapter.rate_interval`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, cast
from urllib.parse import urlparse

from telegram import Bot as TgBot
from telegram import (
    BotCommand,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.commands import ALIASES, USAGE, usage_text
from bot.config import Settings
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator, translator
from bot.outbox import Coalescer, Tally
from bot.ports import Attachment, BoardView, Button, Inbound, Reply, TableAddress
from bot.service import StudBot

from .codec import (
    MAX_ALERT,
    MAX_CAPTION,
    MAX_TEXT,
    channel_of,
    clip,
    compose,
    decode_callback,
    deep_link,
    encode_callback,
    fit_alert,
    parse_channel,
    parse_payload,
    start_payload,
)

log = logging.getLogger(__name__)

PLATFORM: Final = "telegram"
LINES_SHOWN: Final = 6
"""Public lines kept under a board while the hand goes on."""
FINAL_LINES_SHOWN: Final = 14
"""... and under a hand's final board (the showdown lines), at least those of its last flush."""
ACTION_ROW: Final = 3
OWNER_COMMANDS: Final = frozenset({"config", "kick", "stop", "start", "tourney"})
"""Commands that may need the sender's admin rights ('start' and 'tourney start' of a sit-and-go too)."""
SHORT_COMMANDS: Final = ("new", "join", "leave", "sitout", "back", "start", "stop", "config", "kick", "cards", "board",
                         "top", "stats", "history", "hand", "export", "seed", "verify", "rules", "help", "lang",
                         "addbot", "tourney", "fold", "check", "call", "bet", "raise", "complete", "bringin")
TOURNEY_COMMANDS: Final = ("register", "unregister")
"""Sit-and-go shorthands: /register is 'tourney register'."""
ALLOWED_UPDATES: Final = ["message", "callback_query"]
MAX_DESCRIPTION: Final = 256

AnyApp = Application[Any, Any, Any, Any, Any, Any]


@dataclass
class _Board:
    """What the messenger knows of a table's board message (in memory; the core stores the ref)."""

    message_id: int | None = None
    hand_no: int = -1
    final: bool = False
    lines: list[str] = field(default_factory=list)
    shown: tuple[str, str, str] | None = None
    """(text, keyboard, image digest) last sent, to skip edits that change nothing."""
    photo: bool = False
    """The message is a photo (the board image, the text as its caption), not a text message."""
    image: bytes | None = None
    """The image the photo shows now: an unchanged image needs only a caption edit."""


class TelegramMessenger:
    """The :class:`~bot.ports.Messenger` port on Telegram."""

    def __init__(self, tg: TgBot, *, grace: float = 4.0,
                 language_of: Callable[[TableAddress], str | None] | None = None) -> None:
        self.tg = tg
        self.language_of = language_of
        """The language of a table's public board (the link button under it speaks it)."""
        self.grace = grace
        """How long lines wait for a board to fold into before they are posted on their own."""
        self.username: str | None = None
        self.reachable: set[str] = set()
        """Users whose private chat works (a DM went through, or they started the bot)."""
        self.unreachable: set[str] = set()
        """Users whose private chat refused a message (never started the bot, or blocked it)."""
        self._boards: dict[str, _Board] = {}
        self._pending: dict[str, list[str]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._addresses: dict[str, TableAddress] = {}
        self._tallies: dict[str, Tally] = {}
        """Per table: lines announced, and lines out (folded into a board, or posted on their own)."""

    # ------------------------------------------------------------------ the port

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        held = len(self._pending.get(table.key, []))  # the lines this board takes with it
        shown = False
        try:
            ref, shown = await self._show_board(table=table, board=board, ref=ref)
        finally:
            self._tally(table.key).done(held, ok=shown)
        return ref

    async def _show_board(self, *, table: TableAddress, board: BoardView,
                          ref: str | None) -> tuple[str | None, bool]:
        """Edit or post the board (with the lines waiting); (its reference, whether it is shown)."""
        key = table.key
        state = self._boards.setdefault(key, _Board())
        pending = self._pending.pop(key, [])  # taken before any await: lines of the same flush go with the board
        waiting = self._tasks.pop(key, None)
        if waiting is not None:
            waiting.cancel()
        message_id = _message_id(ref)
        if message_id is not None and state.message_id not in (None, message_id):
            state.lines, state.shown = [], None  # someone else's idea of the board (a restart, a 'board' command)
        next_hand = state.final and board.hand_no != state.hand_no and state.message_id == message_id
        photo = board.image is not None
        switched = state.message_id == message_id and state.photo != photo  # a text message cannot become a photo
        if ref is None or message_id is None or next_hand or switched:
            message_id = None  # a new message
        if message_id is None or board.hand_no != state.hand_no:
            state.lines = pending  # a new message or a new hand: the lines of this flush only
        else:
            state.lines = (state.lines + pending)[-50:]
        shown = max(FINAL_LINES_SHOWN, len(pending)) if board.final else LINES_SHOWN
        text = compose(board.text, state.lines[-shown:], MAX_CAPTION if photo else MAX_TEXT)
        markup = self.keyboard(board.buttons, table.channel, self.table_translator(table))
        digest = hashlib.sha256(board.image).hexdigest() if board.image is not None else ""
        signature = (text, repr(markup.to_dict()), digest)
        chat_id, thread_id = parse_channel(table.channel)
        if message_id is not None:
            if state.shown == signature and state.message_id == message_id:
                return ref, True
            try:
                await self._edit(chat_id, message_id, board, text, markup,
                                 same_image=state.message_id == message_id and state.photo and photo
                                 and state.image == board.image)
            except BadRequest as exc:
                if "not modified" not in str(exc).lower():
                    log.info("cannot edit the board of %s (%s): posting a new one", key, exc)
                    message_id = None
            except TelegramError as exc:
                log.warning("editing the board of %s failed: %s", key, exc)
                return ref, False
        if message_id is None:
            try:
                if board.image is not None:
                    sent = await self.tg.send_photo(chat_id=chat_id, message_thread_id=thread_id,
                                                    photo=board.image, filename="board.png", caption=text,
                                                    parse_mode=ParseMode.HTML, reply_markup=markup)
                else:
                    sent = await self.tg.send_message(chat_id=chat_id, message_thread_id=thread_id, text=text,
                                                      parse_mode=ParseMode.HTML, reply_markup=markup,
                                                      link_preview_options=LinkPreviewOptions(is_disabled=True))
            except TelegramError as exc:
                log.warning("posting the board of %s failed: %s", key, exc)
                return ref, False
            message_id = sent.message_id
        state.message_id, state.hand_no, state.final, state.shown = message_id, board.hand_no, board.final, signature
        state.photo, state.image = photo, board.image
        return str(message_id), True

    async def _edit(self, chat_id: int, message_id: int, board: BoardView, text: str, markup: InlineKeyboardMarkup,
                    *, same_image: bool) -> None:
        """Edit the board message: its text, its caption (same image), or its image and caption."""
        if board.image is None:
            await self.tg.edit_message_text(chat_id=chat_id, message_id=message_id, text=text,
                                            parse_mode=ParseMode.HTML, reply_markup=markup,
                                            link_preview_options=LinkPreviewOptions(is_disabled=True))
        elif same_image:
            await self.tg.edit_message_caption(chat_id=chat_id, message_id=message_id, caption=text,
                                               parse_mode=ParseMode.HTML, reply_markup=markup)
        else:
            media = InputMediaPhoto(media=board.image, caption=text, parse_mode=ParseMode.HTML,
                                    filename="board.png")
            await self.tg.edit_message_media(chat_id=chat_id, message_id=message_id, media=media,
                                             reply_markup=markup)

    async def announce(self, *, table: TableAddress, text: str) -> None:
        """Lines wait for the board that (almost always) follows in the same flush; alone, they are posted."""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if not lines:
            return
        self._pending.setdefault(table.key, []).extend(lines)
        self._tally(table.key).add(len(lines))
        self._addresses[table.key] = table
        task = self._tasks.get(table.key)
        if task is None or task.done():
            self._tasks[table.key] = asyncio.get_running_loop().create_task(self._post_lines(table))

    async def delivered(self, *, table: TableAddress) -> bool:
        """Wait until the lines announced so far for the table are out (see :class:`~bot.ports.Confirming`)."""
        return await self._tally(table.key).wait()

    def _tally(self, key: str) -> Tally:
        tally = self._tallies.get(key)
        if tally is None:
            tally = self._tallies[key] = Tally()
        return tally

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        if not user.isdigit():
            return False
        try:
            if image is not None:
                try:  # the cards as a photo, the text as its caption
                    await self.tg.send_photo(chat_id=int(user), photo=image, filename="cards.png",
                                             caption=clip(text, MAX_CAPTION))
                except TelegramError as exc:
                    if _refused(exc):
                        raise
                    log.warning("the cards photo to %s failed (%s); sending text", user, exc)
                    await self.tg.send_message(chat_id=int(user), text=clip(text, 4096))
            else:
                await self.tg.send_message(chat_id=int(user), text=clip(text, 4096))
        except TelegramError as exc:
            if _refused(exc):
                log.info("cannot message user %s privately: %s", user, exc)
                self.mark(user, reachable=False)
                return False
            log.warning("private message to %s failed: %s", user, exc)  # a hiccup is not a blocked user
            return True
        self.mark(user, reachable=True)
        return True

    async def send_files(self, user: str, files: tuple[Attachment, ...]) -> bool:
        """Each file as a document in the user's private chat; False if that chat is closed to the bot."""
        for file in files:
            try:
                await self.tg.send_document(chat_id=int(user), document=file.data, filename=file.name)
            except TelegramError as exc:
                if _refused(exc):
                    self.mark(user, reachable=False)
                    return False
                log.warning("sending %s to %s failed: %s", file.name, user, exc)
        return True

    # ------------------------------------------------------------------ helpers

    def mark(self, user: str, *, reachable: bool) -> None:
        (self.reachable if reachable else self.unreachable).add(user)
        (self.unreachable if reachable else self.reachable).discard(user)

    async def probe(self, user: str) -> bool:
        """Whether the bot may message ``user`` privately (a 'typing' action finds out, once)."""
        if user in self.reachable:
            return True
        try:
            await self.tg.send_chat_action(chat_id=int(user), action=ChatAction.TYPING)
        except TelegramError as exc:
            if _refused(exc):
                self.mark(user, reachable=False)
                return False
            return isinstance(exc, BadRequest) or user not in self.unreachable
        self.mark(user, reachable=True)
        return True

    async def _post_lines(self, table: TableAddress, *, wait: bool = True) -> None:
        if wait:
            await asyncio.sleep(self.grace)
            if self._tasks.get(table.key) is asyncio.current_task():
                del self._tasks[table.key]  # from here on, not cancelled by a board
        lines = self._pending.pop(table.key, [])
        if not lines:
            return
        chat_id, thread_id = parse_channel(table.channel)
        sent = None
        try:
            sent = await self.post(chat_id, thread_id, "\n".join(lines))
        finally:
            self._tally(table.key).done(len(lines), ok=sent is not None)

    async def post(self, chat_id: int, thread_id: int | None, text: str, *, reply_to: int | None = None,
                   markup: InlineKeyboardMarkup | None = None) -> Message | None:
        """A plain message in a chat (never a down card: callers pass public text only)."""
        try:
            return await self.tg.send_message(
                chat_id=chat_id, message_thread_id=thread_id, text=clip(text, 4096), reply_markup=markup,
                reply_parameters=ReplyParameters(message_id=reply_to, allow_sending_without_reply=True)
                if reply_to else None,
                link_preview_options=LinkPreviewOptions(is_disabled=True))
        except TelegramError as exc:
            log.warning("message to %s failed: %s", chat_id, exc)
            return None

    def link(self, channel: str, *, join: bool) -> str | None:
        return deep_link(self.username, start_payload(channel, join=join)) if self.username else None

    def table_translator(self, table: TableAddress) -> Translator:
        return translator(self.language_of(table) if self.language_of is not None else None)

    def keyboard(self, buttons: tuple[Button, ...], channel: str, tr: Translator | None = None) -> InlineKeyboardMarkup:
        """The legal actions (three to a row), then Join and My cards, then the private chat link."""
        actions = [b for b in buttons if "@" in b.command]
        others = [b for b in buttons if "@" not in b.command]
        rows: list[list[InlineKeyboardButton]] = []
        for i in range(0, len(actions), ACTION_ROW):
            rows.append([_button(b) for b in actions[i:i + ACTION_ROW]])
        if others:
            rows.append([_button(b) for b in others])
        url = self.link(channel, join=False)
        if url:
            tr = tr or translator(DEFAULT_LANGUAGE)
            rows.append([InlineKeyboardButton(tr("adapters.private_link"), url=url)])
        return InlineKeyboardMarkup(rows)

    async def drain(self) -> None:
        """Post the lines still waiting for a board (at shutdown)."""
        for task in self._tasks.values():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        for key in list(self._pending):
            table = self._addresses.get(key)
            if table is not None:
                await self._post_lines(table, wait=False)


def _button(b: Button) -> InlineKeyboardButton:
    return InlineKeyboardButton(b.label, callback_data=encode_callback(b.command))


def _message_id(ref: str | None) -> int | None:
    return int(ref) if ref is not None and ref.isdigit() else None


# ---------------------------------------------------------------------- the adapter


class TelegramAdapter:
    """What adapters/run.py serves: ``connect()``, then ``run(stop)`` until stopped."""

    platform = PLATFORM
    rate_interval: float = 3.5
    """A flush is one board edit (lines are folded in): at most ~17 a minute, plus a final board."""
    group_rate: tuple[float, float] = (20, 60)
    """AIORateLimiter's per-group budget (messages, seconds)."""
    poll_timeout: int = 10

    def __init__(self, *, settings: Settings, bot: StudBot) -> None:
        token = settings.telegram_token
        if not token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        self.settings = settings
        self.bot = bot
        builder = (ApplicationBuilder().token(token)
                   .rate_limiter(AIORateLimiter(overall_max_rate=30, overall_time_period=1,
                                                group_max_rate=self.group_rate[0],
                                                group_time_period=self.group_rate[1], max_retries=3))
                   .concurrent_updates(16))
        base = settings.telegram_base_url
        if base:
            api, files = _base_urls(base)
            builder = builder.base_url(api).base_file_url(files)
        self.app: AnyApp = cast(AnyApp, builder.build())
        self.app.add_handler(MessageHandler(filters.COMMAND, self._on_command))
        self.app.add_handler(CallbackQueryHandler(self._on_press))
        self.app.add_error_handler(self._on_error)
        self.outbox: Coalescer | None = None
        self.messenger = TelegramMessenger(self.app.bot, grace=self.rate_interval + 0.5, language_of=self._language_of)
        self._webhook: Any = None

    # ------------------------------------------------------------------ life cycle

    async def connect(self) -> None:
        await self.app.initialize()
        self.messenger.username = self.app.bot.username
        for lang in LANGUAGES:  # English is the default list; Russian and Polish users get their own
            code = None if lang == DEFAULT_LANGUAGE else lang
            try:
                await self.app.bot.set_my_commands(command_list(translator(lang)), language_code=code)
            except TelegramError as exc:
                log.warning("setMyCommands (%s) failed: %s", lang, exc)

    async def run(self, stop: asyncio.Event) -> None:
        await self.app.start()
        try:
            if self.settings.telegram_webhook_url:
                await self._start_webhook(self.settings.telegram_webhook_url)
            else:
                assert self.app.updater is not None
                await self.app.updater.start_polling(timeout=self.poll_timeout, allowed_updates=ALLOWED_UPDATES)
            log.info("telegram: serving as @%s", self.messenger.username)
            await stop.wait()
        finally:
            await self._stop()

    async def _stop(self) -> None:
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self._webhook is not None:
            await self._webhook.cleanup()
            self._webhook = None
        if self.app.running:
            await self.app.stop()
        # What the outbox still holds must go out before the HTTP client closes (see the report:
        # the bootstrap drains the outbox only after run() returns).
        if self.outbox is not None:
            with contextlib.suppress(Exception):
                await self.outbox.drain()
        await self.messenger.drain()
        await self.app.shutdown()

    async def _start_webhook(self, url: str) -> None:
        from aiohttp import web

        token = self.settings.telegram_token or ""
        secret = hashlib.sha256(token.encode()).hexdigest()[:32]
        path = urlparse(url).path or "/"

        async def receive(request: web.Request) -> web.Response:
            if request.headers.get("X-Telegram-Bot-Api-Secret-Token") != secret:
                return web.Response(status=403)
            update = Update.de_json(await request.json(), self.app.bot)
            await self.app.update_queue.put(update)
            return web.Response(text="ok")

        web_app = web.Application()
        web_app.router.add_post(path, receive)
        runner = web.AppRunner(web_app)
        await runner.setup()
        host = self.settings.telegram_webhook_listen
        port = self.settings.telegram_webhook_port
        await web.TCPSite(runner, host, port).start()
        self._webhook = runner
        await self.app.bot.set_webhook(url=url, secret_token=secret, allowed_updates=ALLOWED_UPDATES)
        log.info("telegram: webhook %s on %s:%d", url, host, port)

    # ------------------------------------------------------------------ inbound

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("telegram update %r failed", update, exc_info=context.error)

    async def _on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg, user, chat = update.effective_message, update.effective_user, update.effective_chat
        if msg is None or user is None or chat is None or not msg.text or user.is_bot:
            return
        parsed = split_command(msg.text, self.messenger.username)
        if parsed is None:
            return
        name, rest = parsed
        if chat.type == "private":
            await self._private_command(msg, user, name, rest)
            return
        if chat.type not in ("group", "supergroup"):
            return
        text = grammar_text(name, rest)
        if text is None:
            return
        thread = msg.message_thread_id if msg.is_topic_message else None
        channel = channel_of(chat.id, thread)
        head = text.split()[0].lower()
        admin = await self._is_admin(chat.id, user.id) if ALIASES.get(head, head) in OWNER_COMMANDS else False
        reply = await self.bot.handle(self._inbound(chat.id, channel, user, text, admin=admin))
        await self._reply_in_group(reply, chat.id, thread, msg.message_id, user, channel)

    async def _on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None:
            return
        command = decode_callback(query.data)
        message = query.message
        user = query.from_user
        tr = self._translator(user)
        if command is None or message is None:
            await _answer(query, tr("adapters.button_gone"))
            return
        chat_id = message.chat.id
        topic = isinstance(message, Message) and message.is_topic_message
        thread = message.message_thread_id if isinstance(message, Message) and topic else None
        channel = channel_of(chat_id, thread)
        uid = str(user.id)
        if command == "join" and not await self.messenger.probe(uid):
            url = self.messenger.link(channel, join=True)
            if url:  # the join finishes in the private chat, where the cards can reach them
                await _answer(query, url=url)
                return
        if command == "cards":
            reply = await self.bot.handle(self._inbound(chat_id, channel, user, "cards"))
            if not reply.ok:
                await _answer(query, reply.text)
            elif uid not in self.messenger.unreachable and await self.messenger.send_private(
                    platform=PLATFORM, user=uid, text=reply.text):
                await _answer(query, tr("adapters.cards_sent"))
            else:
                await _answer(query, fit_alert(reply.text), show_alert=True)
            return
        reply = await self.bot.handle(self._inbound(chat_id, channel, user, command))
        url = self.messenger.link(channel, join=False)
        if command == "join" and reply.ok and uid in self.messenger.unreachable and url:
            await _answer(query, url=url)  # seated, but the cards cannot reach them: open the private chat
            return
        await _answer(query, reply.text or None)

    async def _private_command(self, msg: Message, user: User, name: str, rest: str) -> None:
        uid = str(user.id)
        # the private chat is open: the core clears 'unreachable' on their seats and sends their cards
        self.messenger.mark(uid, reachable=True)
        changed = await self.bot.mark_reachable(platform=PLATFORM, user=uid)
        tr = self._translator(user)
        if name != "start":
            text = grammar_text(name, rest)
            head = (text or "").split()[:1]
            if head and ALIASES.get(head[0], head[0]) in ("help", "rules", "lang"):
                reply = await self.bot.handle(self._inbound(user.id, str(user.id), user, text or "help"))
                await self.messenger.post(msg.chat.id, None, reply.text)
            else:
                await self.messenger.post(msg.chat.id, None, tr("adapters.group_only"))
            return
        target = parse_payload(rest) if rest else None
        if target is None:
            await self.messenger.post(msg.chat.id, None, tr("adapters.hello"))
            return
        channel, join = target
        chat_id, _ = parse_channel(channel)
        lines = []
        if join:
            reply = await self.bot.handle(self._inbound(chat_id, channel, user, "join"))
            lines.append(tr("adapters.seated") if _already_seated(reply) else reply.text)
        if not changed:
            cards = await self.bot.handle(self._inbound(chat_id, channel, user, "cards"))
            if cards.ok and cards.text:
                lines.append(cards.text)
        lines.append(tr("adapters.cards_here"))
        await self.messenger.post(msg.chat.id, None, "\n".join(lines))

    async def _reply_in_group(self, reply: Reply, chat_id: int, thread: int | None, message_id: int, user: User,
                              channel: str) -> None:
        if not reply.text:
            return
        uid = str(user.id)
        if not reply.private or not reply.ok:
            # public answers, and refusals (usage, rules, turns: never cards) go to the group
            await self.messenger.post(chat_id, thread, reply.text, reply_to=message_id)
            return
        url = self.messenger.link(channel, join=False)
        tr = self._translator(user)
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("adapters.open_private"), url=url)]]) if url else None
        if reply.code == "unreachable":  # seated, but the private chat is closed: say so here, with the way in
            await self.messenger.post(chat_id, thread, tr("adapters.seated_open_private"), reply_to=message_id,
                                      markup=markup)
            return
        if uid not in self.messenger.unreachable and await self.messenger.send_private(
                platform=PLATFORM, user=uid, text=reply.text, image=reply.image) \
                and await self.messenger.send_files(uid, reply.files):
            return
        await self.messenger.post(chat_id, thread, tr("adapters.answer_privately"), reply_to=message_id,
                                  markup=markup)

    def _inbound(self, chat_id: int, channel: str, user: User, text: str, *, admin: bool = False) -> Inbound:
        return Inbound(platform=PLATFORM, community=str(chat_id), channel=channel, user=str(user.id),
                       name=user.full_name or user.username or str(user.id), text=text, admin=admin,
                       locale=user.language_code)

    def _translator(self, user: User) -> Translator:
        """The user's language for the adapter's own words (their choice, else Telegram's language_code)."""
        return self.bot.translator_for(platform=PLATFORM, user=str(user.id), locale=user.language_code)

    def _language_of(self, table: TableAddress) -> str | None:
        """The language of the table's public board (English if the table is not known)."""
        runtime = self.bot.tables.get(table.key)
        return runtime.table.lang if runtime is not None else None

    async def _is_admin(self, chat_id: int, user_id: int) -> bool:
        try:
            member = await self.app.bot.get_chat_member(chat_id=chat_id, user_id=user_id)
        except TelegramError:
            return False
        return member.status in ("administrator", "creator")


async def _answer(query: CallbackQuery, text: str | None = None, *, show_alert: bool = False,
                  url: str | None = None) -> None:
    try:
        await query.answer(text=clip(text, MAX_ALERT) if text else None, show_alert=show_alert or None, url=url)
    except TelegramError as exc:
        log.info("answering a button press failed: %s", exc)


def _already_seated(reply: Reply) -> bool:
    """The join was refused because the user sits at that table already."""
    return reply.code == "already_seated" or (not reply.ok and "already seated" in reply.text)


def command_list(tr: Translator) -> list[BotCommand]:
    """The commands Telegram suggests, described in ``tr``'s language (the names stay: Latin only)."""
    commands = [BotCommand("stud", clip(tr("adapters.stud_command"), MAX_DESCRIPTION))]
    commands += [BotCommand(c, clip(usage_text(tr, ALIASES.get(c, c)), MAX_DESCRIPTION)) for c in SHORT_COMMANDS]
    commands += [BotCommand("register", clip(tr("usage.register"), MAX_DESCRIPTION)),
                 BotCommand("unregister", clip(tr("usage.unregister"), MAX_DESCRIPTION))]
    return commands


def split_command(text: str, username: str | None) -> tuple[str, str] | None:
    """('join', '200') of '/join@studbot 200'; None for a command addressed to another bot.

    >>> split_command("/Join@StudBot 200", "studbot"), split_command("/join@other", "studbot")
    (('join', '200'), None)
    """
    if not text.startswith("/"):
        return None
    head, _, rest = text.strip().partition(" ")
    name, _, target = head[1:].partition("@")
    if target and (username is None or target.lower() != username.lower()):
        return None
    return name.lower(), rest.strip()


def grammar_text(name: str, rest: str) -> str | None:
    """The grammar's text of a slash command, or None for a command that is not ours.

    >>> grammar_text("stud", "join 200"), grammar_text("fold", ""), grammar_text("weather", "")
    ('join 200', 'fold', None)
    """
    if name in ("stud", "poker"):
        return rest or "help"
    canon = ALIASES.get(name, name)
    if canon not in USAGE and name not in TOURNEY_COMMANDS:
        return None
    return f"{name} {rest}".strip()


def _base_urls(base: str) -> tuple[str, str]:
    """TELEGRAM_BASE_URL ('http://host:8081' or '.../bot') as PTB's base_url and base_file_url."""
    base = base.rstrip("/")
    if "{token}" in base:
        return base, base.replace("/bot{token}", "/file/bot{token}")
    if not base.endswith("/bot"):
        base += "/bot"
    return base, base[: -len("/bot")] + "/file/bot"


def _refused(exc: TelegramError) -> bool:
    """Telegram refuses to let the bot message this user privately (blocked, or never started)."""
    return isinstance(exc, Forbidden) or (isinstance(exc, BadRequest) and "chat not found" in str(exc).lower())
