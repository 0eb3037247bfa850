"""The ports adapters implement, and the values that cross them.

The application speaks to a platform only through a :class:`Messenger`; it reads
time only from a :class:`Clock`. Adapters implement them; tests use fakes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeGuard, runtime_checkable


@dataclass(frozen=True, slots=True)
class Inbound:
    """One command from a user, whatever the platform: the single inbound funnel."""

    platform: str
    """'console', 'discord', 'telegram'."""
    community: str
    """The server or group: wallets and the leaderboard are per community."""
    channel: str
    """The channel, thread or forum topic: one table per channel."""
    user: str
    """The platform's user id."""
    name: str
    """The name to show."""
    text: str
    """The command as typed, or the command a button stands for ('call @12.7')."""
    admin: bool = False
    """A server or group admin (may configure, kick and stop any table)."""
    locale: str | None = None
    """The user's language as the platform tells it ('ru', 'pl', 'en-US'; Discord's interaction
    locale, Telegram's language_code), or None. Private answers follow it (unless the user chose
    a language with 'lang')."""
    community_locale: str | None = None
    """The server's or group's language, if the platform knows it (Discord's guild locale): a new
    table's public language."""
    update_id: int | None = None
    """The platform's id of the delivery that brought it, where the platform retries deliveries
    (Telegram's webhook ``update_id``): the action it makes is stored with it marked done, so that a
    retry of it is never applied twice (bot/platform/updates.py)."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file for the sender alone (a hand-history export): its name, bytes and MIME type."""

    name: str
    data: bytes
    mime: str = "text/plain"


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to the sender. ``private``: only the sender may see it (it can hold cards)."""

    text: str
    private: bool = False
    ok: bool = True
    code: str = ""
    """What happened, for adapters that act on it (the text is in the user's language):
    'seated', 'already_seated', 'unreachable', 'turn_over' (a button of a turn already played), or ''."""
    files: tuple[Attachment, ...] = ()
    """Files for the sender (only with ``private``): Discord attaches them to the ephemeral answer,
    Telegram sends them as documents in the private chat, the console writes them and prints the paths."""
    image: bytes | None = None
    """A PNG to show with a private answer (the text as its caption), such as the stats chart;
    a messenger that cannot show images (the console) shows the text alone."""


@dataclass(frozen=True, slots=True)
class Button:
    """A button under the board: its label and the command it sends (with its turn token)."""

    label: str
    command: str


def channel_key(*, platform: str, channel: str) -> str:
    """The key of a channel's table among those a process holds: "platform:channel"."""
    return f"{platform}:{channel}"


@dataclass(frozen=True, slots=True)
class TableAddress:
    platform: str
    community: str
    channel: str

    @property
    def key(self) -> str:
        return channel_key(platform=self.platform, channel=self.channel)


@dataclass(frozen=True, slots=True)
class BoardView:
    """The public board as text plus its buttons; ``final`` once the hand is over.

    ``image``: the same board as a PNG when the table's view is "image" (None: text only,
    or the image could not be drawn). The text is always there (a caption, a fallback);
    a messenger that cannot show images (the console) ignores ``image``.

    ``deck``: the short commitment of the hand being played, or of the next one once it is
    committed ('Deck #4 2fe4…d4db · verify after the hand'; '' if none): Discord shows it as
    the embed's footer, Telegram under the board in its caption, the console as a line of
    its own when it changes.

    ``urgent``: shown at once, not held back for the table's interval (a deal's board: its private cards
    follow it, and the board must not come seconds after them). A final board is always shown at once.
    """

    text: str
    buttons: tuple[Button, ...]
    hand_no: int
    final: bool = False
    image: bytes | None = None
    deck: str = ""
    urgent: bool = False


class Messenger(Protocol):
    """What the application asks of a chat platform."""

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        """Show the board: edit the message ``ref`` if given and possible, else post one.

        Returns the reference of the message now showing the board (the application
        stores it, so that edits continue after a restart).
        """
        ...

    async def announce(self, *, table: TableAddress, text: str) -> None:
        """A public line in the table's channel (actions, showdown, notices)."""
        ...

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        """A private message to one user; False if the user cannot be reached.

        ``image``: the same as a PNG (the player's cards), to show with the text as its
        caption; a messenger that cannot show images (the console) sends the text alone.
        """
        ...


@runtime_checkable
class Confirming(Protocol):
    """A messenger that holds public lines back (to coalesce them) and can say when they are out."""

    async def delivered(self, *, table: TableAddress) -> bool:
        """Wait until every line announced so far for ``table`` has been sent: True, or False if
        sending some of them failed. A messenger without this sends a line before announce returns."""
        ...


@runtime_checkable
class Deferring(Protocol):
    """A messenger that shows a table's board at most every so often (to keep within a platform's
    limits) and so can take a board edit as a drawing to make when it is about to be sent."""

    async def defer_board(self, *, table: TableAddress, draw: Callable[[], BoardView], ref: str) -> str | None:
        """Edit the board message ``ref`` with ``draw()``, called only when the edit is sent (a table
        that changes ten times between two sends is drawn once, from its state at that moment).
        Returns what :meth:`Messenger.publish_board` would. Never for a new message or a final board:
        those go through ``publish_board`` at once."""
        ...


@runtime_checkable
class Prompting(Protocol):
    """A messenger that can post a message with buttons of its own in a table's channel (a request
    to the host with Approve and Deny): each button sends its command when pressed."""

    async def post_prompt(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """Post ``text`` with ``buttons`` under it; the message's reference (for :meth:`close_prompt`), or None."""
        ...

    async def close_prompt(self, *, table: TableAddress, ref: str, text: str) -> None:
        """The message ``ref`` (a prompt) now says ``text``, its buttons gone (it is answered)."""
        ...


def prompting(messenger: object) -> TypeGuard[Prompting]:
    """``isinstance(messenger, Prompting)``, answered once per class."""
    return _implements(type(messenger), Prompting)


@runtime_checkable
class Noticing(Protocol):
    """A messenger that can post a message of the bot's own in a table's channel, with buttons under it, and
    edit it later (a settle-up, with a button for each payment still open): not a board, not a line."""

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """Post it; its reference (to edit it), or None if it could not be posted."""
        ...

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        """Edit the message ``ref`` (its buttons too: none left, none shown); False if it could not be."""
        ...


def noticing(messenger: object) -> TypeGuard[Noticing]:
    """``isinstance(messenger, Noticing)``, answered once per class."""
    return _implements(type(messenger), Noticing)


def confirming(messenger: object) -> TypeGuard[Confirming]:
    """``isinstance(messenger, Confirming)``, answered once per class (a protocol check is slow)."""
    return _implements(type(messenger), Confirming)


def deferring(messenger: object) -> TypeGuard[Deferring]:
    """``isinstance(messenger, Deferring)``, answered once per class."""
    return _implements(type(messenger), Deferring)


_IMPLEMENTS: dict[tuple[type, type], bool] = {}


def _implements(kind: type, protocol: type) -> bool:
    known = _IMPLEMENTS.get((kind, protocol))
    if known is None:
        known = _IMPLEMENTS[(kind, protocol)] = issubclass(kind, protocol)
    return known


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Wall-clock time in seconds, a reading for intervals, and callbacks at a time."""

    def now(self) -> float: ...

    def monotonic(self) -> float:
        """Seconds that only ever move forward at the pace of time (never set back or stepped like the
        wall clock): measure an interval with two readings, never with :meth:`now`."""
        ...

    def call_at(self, when: float, callback: Callable[[], Awaitable[None]]) -> TimerHandle: ...
