"""Pure helpers of the Telegram adapter: callback data, channels, deep links, and text that fits.

>>> encode_callback("call @12.7")
's|call|12.7'
>>> decode_callback("s|call|12.7")
'call @12.7'
>>> decode_callback(encode_callback("join")), decode_callback("nonsense")
('join', None)
>>> channel_of(-100123, 7), parse_channel("-100123:7"), parse_channel("-5")
('-100123:7', (-100123, 7), (-5, None))
>>> key = link_key("123:TOKEN")
>>> start_payload("-100123:7", join=True, key=key)
'jm100123_7-0E6iU3yk9QBSNKEt'
>>> parse_payload("jm100123_7-0E6iU3yk9QBSNKEt", key=key), parse_payload("jm100123_7", key=key)
(('-100123:7', True), None)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import re
from collections.abc import Sequence

from bot.text.grammar import TURN_ACTIONS

PREFIX = "s"
MAX_CALLBACK_BYTES = 64
MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_ALERT = 200
_COMMAND = re.compile(r"^[a-z-]{1,16}$")
BUTTON_COMMANDS = frozenset({"join", "cards", "register"})
"""What the boards' buttons send besides the actions (which carry their turn): a sit-and-go's board has register."""
REQUEST_COMMANDS = frozenset({"approve", "deny"})
"""What the buttons under a request to the host send, with the request's id ('s|approve|#12')."""
_REQUEST = re.compile(r"^#\d{1,12}$")
TURN_COMMANDS = frozenset(TURN_ACTIONS) | {"paid"}
"""What buttons send with a turn: the actions (a hand's decision), and 'paid' (a settle-up's payment)."""
_TURN = re.compile(r"^\d{1,9}\.\d{1,6}$")
_CARDS_LINE = re.compile(r"^[^\d:\[]*?(\d+)[^\d:\[]*:\s*(\S.*)$")
"""A private view's first line: words, the hand's number, words, a colon, the cards."""
SIGNATURE_CHARS = 16
"""A deep link's signature: 96 bits of an HMAC-SHA256, in URL-safe base64."""
_PAYLOAD = re.compile(rf"^([jc])(m?)(\d{{1,20}})(?:_(\d{{1,12}}))?-([A-Za-z0-9_-]{{{SIGNATURE_CHARS}}})$")


def encode_callback(command: str) -> str:
    """A button's command ('call @12.7', 'join', 'cards') as compact callback data ('s|call|12.7').

    The table is the chat (and topic) the button lives in, so only the command and
    its turn token (hand number and decision) travel; always within 64 bytes.
    """
    name, _, request = command.partition(" #")
    if request:
        data = f"{PREFIX}|{name}|#{request}"
        if name not in REQUEST_COMMANDS or not _REQUEST.match(f"#{request}"):
            raise ValueError(f"cannot encode button command {command!r}")
        return data
    name, _, turn = command.partition(" @")
    data = f"{PREFIX}|{name}" + (f"|{turn}" if turn else "")
    if len(data.encode()) > MAX_CALLBACK_BYTES or not _COMMAND.match(name) or (turn and not _TURN.match(turn)):
        raise ValueError(f"cannot encode button command {command!r}")
    return data


def decode_callback(data: str | None) -> str | None:
    """The command text a button's callback data stands for, or None if it is not ours: the board's buttons
    send only 'join', 'cards' and the actions with their turn (forged data such as 's|stop' runs nothing).

    >>> [decode_callback(d) for d in ("s|stop", "s|stop|1.2", "s|fold", "s|join|1.2")]
    [None, None, None, None]
    >>> [decode_callback(d) for d in ("s|approve|#12", "s|deny|#3", "s|stop|#12", "s|approve")]
    ['approve #12', 'deny #3', None, None]
    """
    if not data:
        return None
    parts = data.split("|")
    if parts[0] != PREFIX or len(parts) not in (2, 3) or not _COMMAND.match(parts[1]):
        return None
    if len(parts) == 3 and parts[1] in REQUEST_COMMANDS:
        return f"{parts[1]} {parts[2]}" if _REQUEST.match(parts[2]) else None
    if len(parts) == 3:
        if parts[1] not in TURN_COMMANDS or not _TURN.match(parts[2]):
            return None
        return f"{parts[1]} @{parts[2]}"
    return parts[1] if parts[1] in BUTTON_COMMANDS else None


def channel_of(chat_id: int, thread_id: int | None) -> str:
    """One table per group, or per forum topic."""
    return f"{chat_id}:{thread_id}" if thread_id else str(chat_id)


def parse_channel(channel: str) -> tuple[int, int | None]:
    chat, _, thread = channel.partition(":")
    return int(chat), (int(thread) if thread else None)


def link_key(token: str) -> bytes:
    """The key that signs deep links: derived from the bot token (so every worker of one bot has it),
    and not the token itself, which no link shows."""
    return hashlib.sha256(b"studbot deep link\x00" + token.encode()).digest()


def _signature(body: str, key: bytes) -> str:
    digest = hmac.new(key, body.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:SIGNATURE_CHARS]


def start_payload(channel: str, *, join: bool, key: bytes) -> str:
    """A signed deep-link payload naming a table ([A-Za-z0-9_-], at most 52 of Telegram's 64 characters).

    ``j``: finish a join there; ``c``: just connect the private chat (cards). The signature
    (``-`` and :data:`SIGNATURE_CHARS` characters) makes a payload for another table unguessable.
    """
    chat, thread = parse_channel(channel)
    body = ("j" if join else "c") + ("m" if chat < 0 else "") + str(abs(chat)) + (f"_{thread}" if thread else "")
    return f"{body}-{_signature(body, key)}"


def parse_payload(payload: str, *, key: bytes) -> tuple[str, bool] | None:
    """(channel, join?) of a deep-link payload signed with ``key``; None for any other text."""
    m = _PAYLOAD.match(payload.strip())
    if m is None:
        return None
    kind, minus, chat, thread, signature = m.groups()
    body = payload.strip()[: -SIGNATURE_CHARS - 1]
    if not hmac.compare_digest(signature, _signature(body, key)):
        return None
    chat_id = -int(chat) if minus else int(chat)
    return channel_of(chat_id, int(thread) if thread else None), kind == "j"


def deep_link(username: str, payload: str) -> str:
    return f"https://t.me/{username}?start={payload}"


def utf16_len(text: str) -> int:
    """Telegram counts lengths in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """``text`` cut (with an ellipsis) to at most ``limit`` UTF-16 units."""
    if utf16_len(text) <= limit:
        return text
    out = ""
    for ch in text:
        if utf16_len(out + ch) > limit - 1:
            break
        out += ch
    return out + "…"


def fit_alert(text: str) -> str:
    """A private view (its cards line first, then the strength lines) in one alert, in any language.

    Alerts hold at most 200 characters: the cards line comes first and is cut last; the
    other lines follow on one line, shortened if needed. A cards line that reads
    ``<words> <number><words>: <cards>`` (``Hand #3, your cards: ...``, ``Раздача №3, ваши
    карты: ...``) is compacted to ``#3: <cards>``.

    >>> fit_alert("Hand #3, your cards: [A♠] [3♣] 6♦\\nHigh: ace high\\nLow: 6-3-A")
    '#3: [A♠] [3♣] 6♦\\nHigh: ace high Low: 6-3-A'
    >>> fit_alert("Rozdanie nr 12, twoje karty: [K♠] [K♣] 2♦")
    '#12: [K♠] [K♣] 2♦'
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    m = _CARDS_LINE.match(lines[0])
    head = clip(f"#{m.group(1)}: {m.group(2)}" if m else lines[0], MAX_ALERT)
    rest = " ".join(lines[1:])
    if not rest:
        return head
    room = MAX_ALERT - utf16_len(head) - 1
    return head if room < 8 else head + "\n" + clip(rest, room)


def compose(board: str, lines: Sequence[str], limit: int = MAX_TEXT, *, footer: str = "") -> str:
    """The board message as HTML: the board in a monospace block, ``footer`` (the deck's short
    commitment) right under it, the latest lines under that.

    Oldest lines go first when the message would be too long (``limit``: 4096 characters
    for a text message, :data:`MAX_CAPTION` for a photo's caption); if the board alone is
    still too long, its text is cut inside the block (the HTML stays whole).
    """
    under = f"\n{html.escape(footer)}" if footer else ""
    body = f"<pre>{html.escape(board)}</pre>{under}"
    if utf16_len(body) > limit:
        room = limit - len("<pre></pre>") - utf16_len(under)
        while utf16_len(body) > limit and room > 0:
            body = f"<pre>{html.escape(clip(board, room))}</pre>{under}"
            room -= 16
        return body
    kept = list(lines)
    while True:
        text = body + ("\n\n" + html.escape("\n".join(kept)) if kept else "")
        if utf16_len(text) <= limit or not kept:
            return text if utf16_len(text) <= limit else body
        kept.pop(0)
