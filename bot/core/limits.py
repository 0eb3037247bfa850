"""Every range and set of choices a user may set, in one place: the grammar, the features and the
platforms' command forms (Discord's typed options) read them here, so that they always agree."""

from __future__ import annotations

from typing import Final

# ---------------------------------------------------------------- a table (``config ...``)

MIN_TIMER: Final = 10
MAX_TIMER: Final = 600
"""Seconds a player may be given to act (``config timer=N``)."""
STAKE_LIMIT: Final = 1_000_000
"""The largest ante, bring-in or bet a table may set (Discord's config options allow the same)."""
STAKE_RANGES: Final = {"ante": (0, STAKE_LIMIT), "bring_in": (0, STAKE_LIMIT), "small": (1, STAKE_LIMIT),
                       "big": (1, STAKE_LIMIT)}
"""Each stake's lowest and highest value."""
VIEWS: Final = ("image", "text")
"""The ways a table's board may be shown (``config view=...``)."""
REVEALS: Final = ("hand", "stop")
"""When a table reveals its server seeds (``config reveal=...``): after each hand, or when it stops."""
MAX_TIMEBANK: Final = 300
"""The largest time bank, in seconds (``config timebank=N``, 0 to this; 0: none)."""
DEFAULT_TIMEBANK: Final = 30
"""A new table's time bank, in seconds (``STUDBOT_TIME_BANK`` may set another)."""
DEFAULT_REFILL_SECONDS: Final = 5
DEFAULT_REFILL_HANDS: Final = 10
"""A new table's time bank refill: so many seconds every so many hands (``config timebank_refill=S/H``)."""
MAX_REFILL_HANDS: Final = 1000
"""The most hands between two refills (``timebank_refill=S/H``: S up to :data:`MAX_TIMEBANK`, H from 1 to this)."""
BUY_IN_BIG_BETS: Final = 20
"""A buy-in without an amount: this many big bets (at most the wallet); a rebuy without one tops up to it."""
MAX_BUY_IN_BIG_BETS: Final = 100
"""The most big bets a seat may hold after a rebuy (the table's maximum buy-in)."""
MAX_SEATS: Final = 8
"""Seats at a table, and so players in a sit-and-go (it plays at one table)."""

# ---------------------------------------------------------------- a sit-and-go (``tourney new ...``)

MIN_SEATS: Final = 2
"""The fewest players a sit-and-go may be set to wait for (at most :data:`MAX_SEATS`)."""
MIN_STACK: Final = 200
MAX_STACK: Final = 1_000_000
"""The starting stack's range."""
MAX_BUYIN: Final = 1_000_000
"""The largest buy-in (0, a freeroll, is the smallest)."""
MAX_LEVEL_LENGTH: Final = 120
"""The longest level, in hands or minutes (``levels=hands:N``, ``levels=minutes:N``)."""
PACES: Final[dict[str, dict[str, int]]] = {"normal": {"hands": 10, "minutes": 10},
                                           "turbo": {"hands": 5, "minutes": 5}}
"""How long a level lasts, by pace and unit (hands dealt, or minutes since the start)."""
PAYOUTS: Final[dict[str, tuple[int, ...]]] = {"winner": (100,), "65/35": (65, 35), "50/30/20": (50, 30, 20)}
"""Percentages of the prize pool by place, for each payout a tournament may choose."""

# ---------------------------------------------------------------- what a player may ask for

MAX_HISTORY: Final = 20
"""The most hands ``history N`` lists (a larger N lists this many)."""
MAX_EXPORT: Final = 100
"""The most hands one ``export last N`` writes."""
MAX_REPLAY: Final = 20
"""The most hands one ``replay last N`` file holds (and the replayer beside an export: its last ones)."""
PERIODS: Final = {"day": 86_400.0, "week": 7 * 86_400.0, "all": None}
"""``top net`` periods: the last 24 hours, the last 7 days (rolling, from now), or every hand."""
