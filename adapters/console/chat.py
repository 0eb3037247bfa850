"""A local chat on the terminal: one channel, users typed by name, private lines marked.

Public lines print as ``[table] ...`` and private ones as ``[dm user] ...``. A
terminal cannot edit a message, so a board is printed whole when it is posted
and, when it is edited, only its new "to act" line (with the turn token the
buttons would carry, so that a script can answer exactly that turn). The deck's
short commitment is printed as a line of its own whenever it changes.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

from bot.app import StudBot
from bot.core.ports import BoardView, Button, Inbound, Reply, TableAddress

PLATFORM = "console"
COMMUNITY = "local"
CHANNEL = "main"


class ConsoleMessenger:
    """The Messenger port on a terminal (or any line sink)."""

    def __init__(self, write: Callable[[str], None], *, unreachable: set[str] | None = None,
                 turn_tokens: bool = True) -> None:
        self.write = write
        self.turn_tokens = turn_tokens
        self.unreachable = unreachable if unreachable is not None else set()
        self._boards = 0
        self._notices = 0
        self._last_prompt: dict[str, str] = {}
        self._last_deck: dict[str, str] = {}

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        if board.deck and board.deck != self._last_deck.get(table.key):  # a new commitment: one short line
            self._last_deck[table.key] = board.deck
            self.write(f"[table] {board.deck}")
        prompt = _prompt(board) if self.turn_tokens else next(
            (ln for ln in board.text.splitlines() if " to act" in ln), "")
        if ref is None:
            self._boards += 1
            for line in board.text.splitlines():
                self.write(f"[table] {line}")
            if prompt and prompt.split(" [turn ")[0] not in board.text:
                self.write(f"[table] {prompt}")
            self._last_prompt[table.key] = prompt
            return f"board-{self._boards}"
        if prompt and prompt != self._last_prompt.get(table.key):
            self.write(f"[table] {prompt}")
        self._last_prompt[table.key] = prompt
        return ref

    async def announce(self, *, table: TableAddress, text: str) -> None:
        for line in text.splitlines():
            self.write(f"[table] {line}")

    async def post_notice(self, *, table: TableAddress, text: str, buttons: tuple[Button, ...]) -> str | None:
        """A notice (a settle-up): its lines, then its buttons with the commands they send."""
        self._notices += 1
        await self.announce(table=table, text=text)
        self._buttons(buttons)
        return f"notice-{self._notices}"

    async def edit_notice(self, *, table: TableAddress, ref: str, text: str, buttons: tuple[Button, ...]) -> bool:
        """A terminal cannot edit: the notice is printed again, marked as the edit of ``ref``."""
        self.write(f"[table] ({ref} edited)")
        await self.announce(table=table, text=text)
        self._buttons(buttons)
        return True

    def _buttons(self, buttons: tuple[Button, ...]) -> None:
        if buttons:
            self.write("[table] buttons: " + " · ".join(f"{b.label} ({b.command})" for b in buttons))

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        if user in self.unreachable:
            return False
        for line in text.splitlines():
            self.write(f"[dm {user}] {line}")
        return True


def _prompt(board: BoardView) -> str:
    """The board's "X to act" line, with the turn token of its action buttons."""
    token = next((b.command.split("@", 1)[1] for b in board.buttons if "@" in b.command), None)
    lines = board.text.splitlines()
    return f"{lines[-1]} [turn {token}]" if lines and token else ""  # the board ends with who is to act


class ConsoleChat:
    """The chat as a transcript: ``chat.say("ann", "call")`` returns the lines it caused.

    It keeps only the lines of the calls in progress: what was printed before is the
    terminal's to keep, not the process's (a long session would grow without end).
    """

    def __init__(self, bot: StudBot, messenger: ConsoleMessenger, *, after: Callable[[], object] | None = None,
                 files_dir: Path | None = None) -> None:
        self.bot = bot
        self.files_dir = files_dir if files_dir is not None else Path(tempfile.gettempdir()) / "studbot-exports"
        """Where files for a user (exports) are written; their paths are printed to that user."""
        self.messenger = messenger
        self._after = after
        self._listening: dict[int, list[str]] = {}
        """The lines of each :meth:`say` in progress (every line printed meanwhile, as a terminal shows it)."""
        sink = messenger.write

        def write(line: str) -> None:
            for lines in self._listening.values():
                lines.append(line)
            sink(line)

        messenger.write = write

    def inbound(self, user: str, text: str) -> Inbound:
        return Inbound(platform=PLATFORM, community=COMMUNITY, channel=CHANNEL, user=user, name=user, text=text,
                       admin=False)

    async def say(self, user: str, text: str) -> list[str]:
        lines: list[str] = []
        key = id(lines)
        self._listening[key] = lines
        try:
            reply = await self.bot.handle(self.inbound(user, text))
            self.show_reply(user, reply)
            if self._after is not None:
                result = self._after()
                if hasattr(result, "__await__"):
                    await result
        finally:
            del self._listening[key]
        return lines

    def show_reply(self, user: str, reply: Reply) -> None:
        for line in reply.text.splitlines():
            self.messenger.write(f"[dm {user}] {line}")
        if reply.files and reply.private:
            tr = self.bot.translator_for(platform=PLATFORM, user=user)
            folder = user_folder(self.files_dir, user)
            folder.mkdir(parents=True, exist_ok=True)
            for file in reply.files:
                path = folder / file.name
                path.write_bytes(file.data)
                self.messenger.write(f"[dm {user}] {tr('adapters.file_saved', path=str(path.resolve()))}")


_KEPT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_LONGEST = 100
"""Characters of a user's folder name at most (file systems allow 255 bytes)."""


def user_folder(root: Path, user: str) -> Path:
    """The folder under ``root`` for the files of ``user`` (exports): one path component per user,
    the same for the same user and another for any other, whatever the name ('..', 'a/b', '.'):
    ASCII letters, digits, '_' and '-' are kept, any other character is written as %XX of its
    UTF-8 bytes ('..' is '%2E%2E'); a name too long for a file system is cut and ends with '~' and
    a hash of it. Raises ValueError if the folder were not inside ``root`` (it cannot be)."""
    name = "".join(ch if ch in _KEPT else "".join(f"%{b:02X}" for b in ch.encode()) for ch in user) or "%"
    if len(name) > _LONGEST:
        name = name[:_LONGEST - 17] + "~" + hashlib.sha256(user.encode()).hexdigest()[:16]
    base = root.resolve()
    folder = (base / name).resolve()
    if folder.parent != base:
        raise ValueError(f"the files of {user!r} would be written outside {base}")
    return folder
