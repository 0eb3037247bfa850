"""Pure Discord rendering: custom ids, the board embed and its buttons, message chunks.

Nothing here talks to Discord; the functions are unit-tested without a client.
"""

from __future__ import annotations

import re
from typing import Any, Final

import discord

from bot.core.ports import BoardView, Button
from bot.text.grammar import TURN_ACTIONS

PREFIX: Final = "stud:"
TEMPLATE: Final = re.compile(
    r"stud:(?P<command>[a-z][a-z-]{0,19})(?:@(?P<turn>\d{1,9}\.\d{1,9})|#(?P<request>\d{1,12}))?")
"""A button's custom_id: ``stud:join``, ``stud:call@12.7`` (the command and the turn it answers),
``stud:approve#12`` (a host's answer to request 12)."""

MESSAGE_LIMIT: Final = 2000
EMBED_TITLE_LIMIT: Final = 256
EMBED_TEXT_LIMIT: Final = 4096
EMBED_FOOTER_LIMIT: Final = 2048
LABEL_LIMIT: Final = 80
PLAYING: Final = discord.Colour.dark_green()
FINISHED: Final = discord.Colour.light_grey()

_STYLES: Final = {
    "fold": discord.ButtonStyle.danger,
    "check": discord.ButtonStyle.success,
    "call": discord.ButtonStyle.success,
    "bet": discord.ButtonStyle.primary,
    "raise": discord.ButtonStyle.primary,
    "bet-big": discord.ButtonStyle.primary,
    "raise-big": discord.ButtonStyle.primary,
    "complete": discord.ButtonStyle.primary,
    "bring-in": discord.ButtonStyle.primary,
    "approve": discord.ButtonStyle.success,
    "deny": discord.ButtonStyle.danger,
}


def custom_id_of(command: str) -> str:
    """``'call @12.7'`` -> ``'stud:call@12.7'``; ``'join'`` -> ``'stud:join'``;
    ``'approve #12'`` -> ``'stud:approve#12'``."""
    name, _, request = command.strip().partition("#")
    if request:
        custom_id = PREFIX + name.strip() + f"#{request.strip()}"
    else:
        name, _, turn = command.strip().partition("@")
        custom_id = PREFIX + name.strip() + (f"@{turn.strip()}" if turn else "")
    if not TEMPLATE.fullmatch(custom_id):
        raise ValueError(f"cannot put {command!r} on a button")
    return custom_id


BUTTON_COMMANDS: Final = frozenset({"join", "cards", "register"})
"""What the board's buttons send besides the actions (which carry their turn)."""
REQUEST_COMMANDS: Final = frozenset({"approve", "deny"})
"""What the buttons under a request to the host send, with the request's id."""
TURN_COMMANDS: Final = frozenset(TURN_ACTIONS) | {"paid"}
"""What buttons send with a turn: the actions (a hand's decision), and 'paid' (a settle-up's payment)."""


def command_of(custom_id: str) -> str | None:
    """``'stud:call@12.7'`` -> ``'call @12.7'``; None if the id is not one the board puts on a button
    (``'stud:stop'`` and ``'stud:stop@1.2'`` parse, but no button sends them: a forged id runs nothing).

    >>> command_of("stud:join"), command_of("stud:stop"), command_of("stud:fold"), command_of("stud:fold@1.2")
    ('join', None, None, 'fold @1.2')
    >>> command_of("stud:stop@1.2"), command_of("stud:join@1.2")
    (None, None)
    >>> command_of("stud:approve#12"), command_of("stud:stop#12"), command_of("stud:approve")
    ('approve #12', None, None)
    """
    match = TEMPLATE.fullmatch(custom_id)
    if match is None:
        return None
    allowed = REQUEST_COMMANDS if match["request"] else BUTTON_COMMANDS if match["turn"] is None else TURN_COMMANDS
    if match["command"] not in allowed:
        return None
    return command_from_match(match)


def command_from_match(match: re.Match[str]) -> str:
    command, turn, request = match["command"], match["turn"], match["request"]
    return f"{command} @{turn}" if turn else f"{command} #{request}" if request else command


def button_style(command: str) -> discord.ButtonStyle:
    return _STYLES.get(command.split()[0], discord.ButtonStyle.secondary)


def button_rows(buttons: tuple[Button, ...]) -> list[tuple[int, Button]]:
    """(row, button): the actions on the first rows (5 a row), Join and My cards on the row after."""
    actions = [b for b in buttons if "@" in b.command]
    others = [b for b in buttons if "@" not in b.command]
    placed = [(i // 5, b) for i, b in enumerate(actions)]
    first_free = (len(actions) + 4) // 5
    placed += [(first_free + i // 5, b) for i, b in enumerate(others)]
    return [(row, b) for row, b in placed if row < 5]


BOARD_FILE = "board.png"
"""The file name of the board image attached to the board message."""
CARDS_FILE = "cards.png"
REPLY_FILE: Final = "stats.png"
"""The file name of a picture sent with an answer (the stats chart)."""
"""The file name of a player's cards attached to their private message."""


def board_embed(board: BoardView, lines: tuple[str, ...] = ()) -> discord.Embed:
    """The board as an embed: the first line as its title, the rest in a code block, the
    deck's short commitment (``board.deck``) as its footer; ``lines`` (the hand's latest public
    lines, folded in as Telegram folds them into its caption) under it, newest last.

    With an image, the embed shows it (``attachment://board.png``: the caller attaches
    the file) and its description keeps a short text summary: every line but the
    seats' rows (the pot, the community card, who is to act and how).
    """
    first, _, rest = board.text.partition("\n")
    if board.image is not None:
        summary = "\n".join(ln for ln in rest.splitlines() if not ln.startswith(("→ ", "  ")))
        summary = discord.utils.escape_markdown(summary)
        embed = discord.Embed(title=_clip(first, EMBED_TITLE_LIMIT) or "Stud Hi-Lo",
                              description=_clip(summary, EMBED_TEXT_LIMIT) or None,
                              colour=FINISHED if board.final else PLAYING)
        embed.set_image(url=f"attachment://{BOARD_FILE}")
        return _footed(_with_lines(embed, lines), board)
    body = rest.replace("`", "ˋ")
    limit = EMBED_TEXT_LIMIT - len("```\n\n```") - (LINES_LIMIT if lines else 0)
    if len(body) > limit:
        body = body[: limit - 1] + "…"
    return _footed(_with_lines(discord.Embed(title=_clip(first, EMBED_TITLE_LIMIT) or "Stud Hi-Lo",
                                             description=f"```\n{body}\n```" if body else None,
                                             colour=FINISHED if board.final else PLAYING), lines), board)


LINES_FIELD: Final = "\u200b"
"""The name of the embed's field that holds the folded lines (blank: the lines speak for themselves)."""
LINES_LIMIT: Final = 1024
"""An embed field's value: at most 1,024 characters."""


def _with_lines(embed: discord.Embed, lines: tuple[str, ...]) -> discord.Embed:
    """The board's embed with, in a field under it, as many of the newest ``lines`` as fit (oldest dropped)."""
    kept: list[str] = []
    room = LINES_LIMIT
    for line in reversed(lines):
        escaped = discord.utils.escape_markdown(public_text(line))
        if len(escaped) + 1 > room:
            break
        kept.append(escaped)
        room -= len(escaped) + 1
    if kept:
        embed.add_field(name=LINES_FIELD, value="\n".join(reversed(kept)), inline=False)
    return embed


def _footed(embed: discord.Embed, board: BoardView) -> discord.Embed:
    if board.deck:
        embed.set_footer(text=_clip(board.deck, EMBED_FOOTER_LIMIT))
    return embed


def clip_label(label: str) -> str:
    return _clip(label, LABEL_LIMIT) or "?"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chunks(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split text into messages of at most ``limit`` characters, at line breaks when possible."""
    out: list[str] = []
    current = ""
    for line in text.splitlines() or [""]:
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    if current or not out:
        out.append(current)
    return [c for c in out if c.strip()]


def reply_text(text: str) -> str:
    """A short ephemeral answer (one line of the bot's own), escaped and clipped to one message."""
    return _clip(discord.utils.escape_markdown(text), MESSAGE_LIMIT)


def public_text(text: str) -> str:
    """A line for everyone: markdown shown as typed (player names may hold * or _)."""
    return discord.utils.escape_markdown(text)


def command_text(name: str, *args: object, **options: object) -> str:
    """The grammar's command string for a subcommand and its options.

    >>> command_text("join", 200)
    'join 200'
    >>> command_text("config", ante=1, timer=None, big=10)
    'config ante=1 big=10'
    >>> command_text("help", None)
    'help'
    """
    words = [name]
    words += [str(a) for a in args if a is not None]
    words += [f"{k}={v}" for k, v in options.items() if v is not None]
    return " ".join(words)


def component_custom_ids(components: list[Any]) -> set[str]:
    """Every custom_id on a message's components (rows and their children)."""
    ids: set[str] = set()
    for component in components:
        custom_id = getattr(component, "custom_id", None)
        if isinstance(custom_id, str):
            ids.add(custom_id)
        ids |= component_custom_ids(list(getattr(component, "children", []) or []))
    return ids
