"""The :class:`~bot.core.ports.Messenger` port on Telegram: boards, lines and private messages out.

- One board message per hand, edited in place, with the legal actions as inline
  buttons (callback data ``s|call|12.7``: the table is the chat the button lives in).
  With the table's view "image" (the default) the message is a photo of the board with
  the text board as its caption (1,024 characters: the oldest folded lines go first), the
  deck's short commitment under it;
  edits use editMessageMedia, or editMessageCaption when the picture did not change.
  With view "text" it is a text message; a change of view posts a new message.
  A hand's final board stays in the chat, and the next hand starts a new message.
- The table's public lines wait (per table) for the board that follows in the same
  flush and are folded into it (the latest few under the board), so one flush of the
  outbox is one edit; alone, they are posted after a grace period.
- Private cards, documents (exports) and photos go to the player's private chat; the
  messenger remembers who can (and who cannot) be reached there.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from telegram import Bot as TgBot
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from adapters.telegram.codec import (
    MAX_CAPTION,
    MAX_TEXT,
    clip,
    compose,
    deep_link,
    encode_callback,
    link_key,
    parse_channel,
    start_payload,
)
from bot.core.i18n import DEFAULT_LANGUAGE, Translator, translator
from bot.core.ports import Attachment, BoardView, Button, TableAddress
from bot.platform.outbox import Tally

log = logging.getLogger(__name__)

LINES_SHOWN: Final = 6
"""Public lines kept under a board while the hand goes on."""
FINAL_LINES_SHOWN: Final = 14
"""... and under a hand's final board (the showdown lines), at least those of its last flush."""
ACTION_ROW: Final = 3


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
    """The :class:`~bot.core.ports.Messenger` port on Telegram."""

    def __init__(self, tg: TgBot, *, grace: float = 4.0,
                 language_of: Callable[[TableAddress], str | None] | None = None) -> None:
        self.tg = tg
        self.language_of = language_of
        """The language of a table's public board (the link button under it speaks it)."""
        self.grace = grace
        """How long lines wait for a board to fold into before they are posted on their own."""
        self.username: str | None = None
        self.link_key = link_key(tg.token)
        """The key that signs the deep links (see :func:`.codec.start_payload`)."""
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
        message_id, ref_hand = _parse_ref(ref)
        # After a restart or a takeover (this process has not shown the board yet), a message that showed an
        # earlier hand is that hand's board: its final board, or one a newer message replaced while the process
        # that posted the newer one died before its reference was stored. The hand gets a new message (never
        # that old one edited), and the old message's buttons go.
        stale = state.message_id is None and message_id is not None and ref_hand is not None \
            and 0 < ref_hand < board.hand_no
        retire = message_id if stale else None
        if message_id is not None and state.message_id not in (None, message_id):
            state.lines, state.shown = [], None  # someone else's idea of the board (a restart, a 'board' command)
        next_hand = state.final and board.hand_no != state.hand_no and state.message_id == message_id
        photo = board.image is not None
        switched = state.message_id == message_id and state.photo != photo  # a text message cannot become a photo
        if ref is None or message_id is None or next_hand or switched or stale:
            message_id = None  # a new message
        if message_id is None or board.hand_no != state.hand_no:
            state.lines = pending  # a new message or a new hand: the lines of this flush only
        else:
            state.lines = (state.lines + pending)[-50:]
        # Every line of this flush is shown at least once (one flush may bring several at once: a hand's
        # result with its seed, the cash-outs, a new level, the deal); older ones give way.
        shown = max(FINAL_LINES_SHOWN if board.final else LINES_SHOWN, len(pending))
        text = compose(board.text, state.lines[-shown:], MAX_CAPTION if photo else MAX_TEXT, footer=board.deck)
        markup = self.keyboard(board.buttons, table.channel, self.table_translator(table))
        digest = hashlib.sha256(board.image).hexdigest() if board.image is not None else ""
        signature = (text, repr(markup.to_dict()), digest)
        chat_id, thread_id = parse_channel(table.channel)
        if message_id is not None:
            if state.shown == signature and state.message_id == message_id:
                return _ref(message_id, board.hand_no), True
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
            if retire is not None:
                await self._retire(chat_id, retire)
        state.message_id, state.hand_no, state.final, state.shown = message_id, board.hand_no, board.final, signature
        state.photo, state.image = photo, board.image
        return _ref(message_id, board.hand_no), True

    async def retire_old(self, chat_id: int, message_id: int, *, board_ref: str | None) -> None:
        """A button of an old turn was pressed on ``message_id``: if that message is older than the table's
        board (``board_ref``, as stored; message ids grow in a chat, and a board just posted may not be
        stored yet) it is one whose buttons a crash left live-looking (a board posted by a process that
        died before storing it): its buttons go."""
        current, _ = _parse_ref(board_ref)
        if current is not None and message_id < current:
            await self._retire(chat_id, message_id)

    async def _retire(self, chat_id: int, message_id: int) -> None:
        """An old board message: its buttons removed (its text stays, as the record of its hand)."""
        try:
            await self.tg.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=None)
        except TelegramError as exc:  # gone, or without buttons already
            log.info("cannot take the buttons off the old board %s in %s: %s", message_id, chat_id, exc)

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

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A notice (a settle-up): a text message of its own, in monospace, a button a row, after the lines
        still waiting (they are posted first, in their order)."""
        await self._post_lines(table, wait=False)
        chat_id, thread_id = parse_channel(table.channel)
        try:
            sent = await self.tg.send_message(chat_id=chat_id, message_thread_id=thread_id, text=_pre(text),
                                              parse_mode=ParseMode.HTML, reply_markup=_notice_keyboard(buttons),
                                              link_preview_options=LinkPreviewOptions(is_disabled=True))
        except TelegramError as exc:
            log.warning("notice to %s failed: %s", chat_id, exc)
            return None
        return str(sent.message_id)

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        chat_id, _ = parse_channel(table.channel)
        message_id, _ = _parse_ref(ref)
        if message_id is None:
            return False
        try:
            await self.tg.edit_message_text(chat_id=chat_id, message_id=message_id, text=_pre(text),
                                            parse_mode=ParseMode.HTML, reply_markup=_notice_keyboard(buttons),
                                            link_preview_options=LinkPreviewOptions(is_disabled=True))
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return True
            log.warning("editing notice %s in %s failed: %s", ref, chat_id, exc)
            return False
        except TelegramError as exc:
            log.warning("editing notice %s in %s failed: %s", ref, chat_id, exc)
            return False
        return True

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

    async def post_prompt(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A message with buttons of its own, after the lines waiting (:class:`~bot.core.ports.Prompting`)."""
        task = self._tasks.pop(table.key, None)
        if task is not None:
            task.cancel()
        await self._post_lines(table, wait=False)
        chat_id, thread_id = parse_channel(table.channel)
        sent = await self.post(chat_id, thread_id, text,
                               markup=InlineKeyboardMarkup([[_button(b) for b in buttons]]))
        return None if sent is None else str(sent.message_id)

    async def close_prompt(self, *, table: TableAddress, ref: str, text: str) -> None:
        """The prompt ``ref`` edited to ``text``: its keyboard goes with the edit."""
        chat_id, _ = parse_channel(table.channel)
        try:
            await self.tg.edit_message_text(chat_id=chat_id, message_id=int(ref), text=clip(text, 4096))
        except (TelegramError, ValueError) as exc:
            log.warning("editing prompt %s in %s failed: %s", ref, chat_id, exc)

    async def delivered(self, *, table: TableAddress) -> bool:
        """Wait until the lines announced so far for the table are out (see :class:`~bot.core.ports.Confirming`)."""
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
        if not self.username:
            return None
        return deep_link(self.username, start_payload(channel, join=join, key=self.link_key))

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


def _pre(text: str) -> str:
    """A notice's text in monospace (its ledger is a table), escaped, within a message's 4,096 characters."""
    return f"<pre>{html.escape(clip(text, MAX_TEXT - 32))}</pre>"


def _notice_keyboard(buttons: tuple[Button, ...]) -> InlineKeyboardMarkup | None:
    return InlineKeyboardMarkup([[_button(b)] for b in buttons]) if buttons else None


def _ref(message_id: int, hand_no: int) -> str:
    """A board's reference: its message and the hand it shows (stored by the core)."""
    return f"{message_id}#{hand_no}"


def _parse_ref(ref: str | None) -> tuple[int | None, int | None]:
    """(message id, hand shown) of a board's reference; a reference stored before the hand was in it
    (a message id alone) gives no hand.

    >>> _parse_ref("42#7"), _parse_ref("42"), _parse_ref(None), _parse_ref("board-1")
    ((42, 7), (42, None), (None, None), (None, None))
    """
    if ref is None:
        return None, None
    message, _, hand = ref.partition("#")
    if not message.isdigit():
        return None, None
    return int(message), int(hand) if hand.isdigit() else None



def _refused(exc: TelegramError) -> bool:
    """Telegram refuses to let the bot message this user privately (blocked, or never started)."""
    return isinstance(exc, Forbidden) or (isinstance(exc, BadRequest) and "chat not found" in str(exc).lower())
