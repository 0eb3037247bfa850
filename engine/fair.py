"""Provably fair decks: stud8-fair/1, exactly as FAIRNESS.md specifies it.

The bot commits to a secret 32-byte server seed (publishing its SHA-256) before the
players' seeds of the hand are final; the deck is a rejection-sampled Fisher-Yates
shuffle of the canonical order ``2c 2d 2h 2s 3c ... As`` driven by an HMAC-SHA256
counter stream keyed by ``HMAC-SHA256(server_seed, M)``, where ``M`` names the scheme,
the table, the hand number and every dealt-in player's seed in seat order. After the
hand the seed is revealed and anyone can recompute the deck.

The known-answer vector of FAIRNESS.md:

>>> seed = bytes(range(32))
>>> commitment_of(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> record = FairRecord.for_deal(table="console:main", hand_no=12, server_seed=seed,
...                              player_seeds=[("ann", "lucky 7"), ("bob", ""), ("cat", "кот")])
>>> record.key().hex()
'9ba05b2215c27de08ed2df62ae111726cd70e491dfd4273ae0148045e85dd828'
>>> " ".join(str(c) for c in record.deck()[:9])
'Qs Kc 6d Jc 3c 4c 5c 2s 8h'

Standard library only; nothing here draws randomness: the caller passes the seed in
(the bot draws it with ``secrets.token_bytes(SERVER_SEED_BYTES)``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.cards import ALL_CARDS, Card
from engine.errors import CommitmentMismatchError, FairRecordError, NotRevealedError, PlayerSeedError

SCHEME: Final = "stud8-fair/1"
SERVER_SEED_BYTES: Final = 32
MAX_PLAYER_SEED: Final = 64
MAX_PLAYERS: Final = 8
_U32: Final = 1 << 32
_BLOCK: Final = struct.Struct(">8I")
_HEX_DIGITS: Final = frozenset("0123456789abcdef")


def commitment_of(server_seed: bytes) -> str:
    """SHA-256 of the server seed as 64 lowercase hex digits (FAIRNESS.md step 1).

    >>> commitment_of(b"\\x00" * 32)[:16]
    '66687aadf862bd77'
    """
    return hashlib.sha256(server_seed).hexdigest()


def check_player_seed(text: Any) -> str:
    """Return ``text`` if it is a valid player seed: 1-64 printable characters (step 2).

    A player without a seed uses the empty string; that is what the record holds, but
    it is not something a player can set, so it is refused here.

    >>> check_player_seed("lucky 7")
    'lucky 7'
    >>> check_player_seed("x" * 65)
    Traceback (most recent call last):
    ...
    engine.errors.PlayerSeedError: a seed has 1 to 64 characters, this one has 65
    >>> check_player_seed("tab\\there")
    Traceback (most recent call last):
    ...
    engine.errors.PlayerSeedError: a seed has only printable characters, not '\\t' (character 4)
    """
    if not isinstance(text, str):
        raise PlayerSeedError(f"a seed is text, got {type(text).__name__}")
    if not 1 <= len(text) <= MAX_PLAYER_SEED:
        raise PlayerSeedError(f"a seed has 1 to {MAX_PLAYER_SEED} characters, this one has {len(text)}")
    for i, ch in enumerate(text):
        if not ch.isprintable():
            raise PlayerSeedError(f"a seed has only printable characters, not {ch!r} (character {i + 1})")
    return text


def fair_message(*, table: str, hand_no: int, player_seeds: Sequence[tuple[str, str]]) -> bytes:
    """``M`` of step 3: the compact JSON array, UTF-8, non-ASCII characters as themselves.

    >>> fair_message(table="t", hand_no=1, player_seeds=[("ann", ""), ("bob", "é")]).decode()
    '["stud8-fair/1","t",1,[["ann",""],["bob","é"]]]'
    """
    value = [SCHEME, table, hand_no, [[name, seed] for name, seed in player_seeds]]
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate in a name or seed
        raise FairRecordError(f"the table, names and seeds must be valid text: {exc.reason}") from None


def fair_key(*, server_seed: bytes, table: str, hand_no: int, player_seeds: Sequence[tuple[str, str]]) -> bytes:
    """``key = HMAC-SHA256(key=server_seed, msg=M)`` (step 3)."""
    message = fair_message(table=table, hand_no=hand_no, player_seeds=player_seeds)
    return hmac.digest(server_seed, message, "sha256")


def stream(key: bytes) -> Iterator[int]:
    """The endless stream of step 4: blocks ``HMAC-SHA256(key, k as 8 bytes big-endian)``
    for k = 0, 1, 2, ..., each read as eight 4-byte big-endian unsigned integers.

    >>> from itertools import islice
    >>> key = bytes.fromhex("9ba05b2215c27de08ed2df62ae111726cd70e491dfd4273ae0148045e85dd828")
    >>> len(list(islice(stream(key), 20)))
    20
    """
    k = 0
    while True:
        yield from _BLOCK.unpack(hmac.digest(key, k.to_bytes(8, "big"), "sha256"))
        k += 1


def draw_below(n: int, *, source: Iterator[int]) -> int:
    """A uniform index in ``0..n-1`` from 32-bit integers, by rejection (step 5):
    ``limit = 2**32 - (2**32 mod n)``; integers ``u >= limit`` are skipped; ``u mod n``.

    >>> limit = 2**32 - 2**32 % 52          # 4294967248
    >>> draw_below(52, source=iter([limit, limit - 1, 7]))   # limit is rejected; limit - 1 gives 51
    51
    """
    if not 1 <= n <= _U32:
        raise ValueError(f"n must be 1..2**32, got {n}")
    limit = _U32 - _U32 % n
    for u in source:
        if u < limit:
            return u % n
    raise ValueError("the stream of integers ended")  # never for stream(), which is endless


def shuffle(source: Iterator[int]) -> list[Card]:
    """The Fisher-Yates shuffle of step 5 from the canonical order ``2c 2d 2h 2s 3c ... As``:
    for i = 51 down to 1, j = draw_below(i + 1), swap cards i and j.

    >>> from itertools import repeat
    >>> " ".join(map(str, shuffle(repeat(0))[:6]))   # j = 0 at every step
    '2d 2h 2s 3c 3d 3h'
    """
    cards = list(ALL_CARDS)
    for i in range(len(cards) - 1, 0, -1):
        j = draw_below(i + 1, source=source)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deck_of(*, server_seed: bytes, table: str, hand_no: int, player_seeds: Sequence[tuple[str, str]]) -> list[Card]:
    """The 52 cards in dealing order (position 0 first) for a hand's inputs."""
    return shuffle(stream(fair_key(server_seed=server_seed, table=table, hand_no=hand_no, player_seeds=player_seeds)))


@dataclass(frozen=True, slots=True, kw_only=True)
class FairRecord:
    """The ``fair`` object of a hand file: what a player needs to recompute the deck.

    ``server_seed`` is None until it is revealed (after the hand, or when the table stops
    with ``reveal=stop``); ``player_seeds`` are the players dealt in, in seat order, each
    with the seed in force at the deal (``""`` for none).

    >>> record = FairRecord.for_deal(table="t", hand_no=1, server_seed=bytes(32),
    ...                              player_seeds=[("ann", ""), ("bob", "hi")])
    >>> hidden = record.hidden()
    >>> hidden.server_seed is None, hidden.to_dict()["server_seed"]
    (True, None)
    >>> hidden.deck()
    Traceback (most recent call last):
    ...
    engine.errors.NotRevealedError: hand 1 of table 't': the server seed is not revealed yet
    >>> hidden.revealed(server_seed=bytes(32)) == record
    True
    >>> FairRecord.from_dict(record.to_dict()) == record
    True
    """

    scheme: str = SCHEME
    table: str
    hand_no: int
    commitment: str
    server_seed: bytes | None
    player_seeds: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        _check_fields(self)

    @classmethod
    def for_deal(
        cls, *, table: str, hand_no: int, server_seed: bytes, player_seeds: Iterable[tuple[str, str]],
    ) -> FairRecord:
        """The record of a hand about to be dealt, with its seed (not yet public: see :meth:`hidden`)."""
        if not isinstance(server_seed, bytes):
            raise FairRecordError(f"the server seed is bytes, got {type(server_seed).__name__}")
        return cls(
            table=table, hand_no=hand_no, commitment=commitment_of(server_seed), server_seed=server_seed,
            player_seeds=tuple((name, seed) for name, seed in player_seeds),
        )

    def hidden(self) -> FairRecord:
        """The same record without the server seed: what may be shown before the reveal."""
        return FairRecord(
            table=self.table, hand_no=self.hand_no, commitment=self.commitment, server_seed=None,
            player_seeds=self.player_seeds, scheme=self.scheme,
        )

    def revealed(self, *, server_seed: bytes) -> FairRecord:
        """The record with its server seed; :class:`CommitmentMismatchError` if the seed does
        not open the commitment."""
        if not isinstance(server_seed, bytes) or commitment_of(server_seed) != self.commitment:
            raise CommitmentMismatchError(
                f"hand {self.hand_no} of table {self.table!r}: that server seed does not match "
                f"the commitment {self.commitment}"
            )
        return FairRecord(
            table=self.table, hand_no=self.hand_no, commitment=self.commitment, server_seed=server_seed,
            player_seeds=self.player_seeds, scheme=self.scheme,
        )

    @property
    def is_revealed(self) -> bool:
        return self.server_seed is not None

    @property
    def names(self) -> tuple[str, ...]:
        """The players dealt in, in seat order."""
        return tuple(name for name, _ in self.player_seeds)

    def seed_matches_commitment(self) -> bool:
        """True if the server seed is revealed and its SHA-256 is the commitment."""
        return self.server_seed is not None and hmac.compare_digest(commitment_of(self.server_seed), self.commitment)

    def key(self) -> bytes:
        """The HMAC key of step 3; :class:`NotRevealedError` before the reveal."""
        return fair_key(
            server_seed=self._seed(), table=self.table, hand_no=self.hand_no, player_seeds=self.player_seeds,
        )

    def deck(self) -> list[Card]:
        """The 52 cards in dealing order (deal them with ``DeckDealer(Deck.from_cards(...))``)."""
        return shuffle(stream(self.key()))

    def _seed(self) -> bytes:
        if self.server_seed is None:
            raise NotRevealedError(
                f"hand {self.hand_no} of table {self.table!r}: the server seed is not revealed yet"
            )
        return self.server_seed

    @classmethod
    def from_dict(cls, data: Any) -> FairRecord:
        """Read the hand file's ``fair`` object; :class:`FairRecordError` if it is malformed."""
        if not isinstance(data, Mapping):
            raise FairRecordError(f"'fair' must be an object, got {type(data).__name__}")
        missing = [k for k in ("scheme", "table", "hand_no", "commitment", "player_seeds") if k not in data]
        if missing:
            raise FairRecordError(f"'fair' has no {', '.join(repr(k) for k in missing)}")
        scheme = data["scheme"]
        if scheme != SCHEME:
            raise FairRecordError(f"'fair' scheme {scheme!r} is not {SCHEME!r}")
        seed_hex = data.get("server_seed")
        server_seed = None if seed_hex is None else bytes.fromhex(_hex(seed_hex, "server_seed", SERVER_SEED_BYTES))
        raw_seeds = data["player_seeds"]
        if not isinstance(raw_seeds, list):
            raise FairRecordError(f"'fair' player_seeds must be a list of [name, seed], got {raw_seeds!r}")
        pairs: list[tuple[str, str]] = []
        for i, pair in enumerate(raw_seeds):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise FairRecordError(f"'fair' player_seeds[{i}] must be [name, seed], got {pair!r}")
            pairs.append((pair[0], pair[1]))
        return cls(
            scheme=scheme, table=data["table"], hand_no=data["hand_no"], commitment=data["commitment"],
            server_seed=server_seed, player_seeds=tuple(pairs),
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``fair`` object as FAIRNESS.md writes it (``server_seed`` null until revealed)."""
        return {
            "scheme": self.scheme,
            "table": self.table,
            "hand_no": self.hand_no,
            "commitment": self.commitment,
            "server_seed": None if self.server_seed is None else self.server_seed.hex(),
            "player_seeds": [[name, seed] for name, seed in self.player_seeds],
        }


def _hex(value: Any, field: str, size: int) -> str:
    if not (isinstance(value, str) and len(value) == 2 * size and set(value) <= _HEX_DIGITS):
        raise FairRecordError(f"'fair' {field} must be {2 * size} lowercase hex digits, got {value!r}")
    return value


def _check_fields(record: FairRecord) -> None:
    if record.scheme != SCHEME:
        raise FairRecordError(f"'fair' scheme {record.scheme!r} is not {SCHEME!r}")
    if not isinstance(record.table, str) or not record.table:
        raise FairRecordError(f"'fair' table must be a non-empty string, got {record.table!r}")
    if type(record.hand_no) is not int or record.hand_no < 0:
        raise FairRecordError(f"'fair' hand_no must be a whole number, got {record.hand_no!r}")
    _hex(record.commitment, "commitment", 32)
    if record.server_seed is not None and (
        not isinstance(record.server_seed, bytes) or len(record.server_seed) != SERVER_SEED_BYTES
    ):
        raise FairRecordError(f"the server seed must be {SERVER_SEED_BYTES} bytes, got {record.server_seed!r}")
    seeds = record.player_seeds
    if not isinstance(seeds, tuple) or not 2 <= len(seeds) <= MAX_PLAYERS:
        raise FairRecordError(f"'fair' player_seeds must list 2 to {MAX_PLAYERS} players, got {seeds!r}")
    names: set[str] = set()
    for i, pair in enumerate(seeds):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise FairRecordError(f"'fair' player_seeds[{i}] must be (name, seed), got {pair!r}")
        name, seed = pair
        if not isinstance(name, str) or not name:
            raise FairRecordError(f"'fair' player_seeds[{i}]: the name must be a non-empty string, got {name!r}")
        if name in names:
            raise FairRecordError(f"'fair' player_seeds: {name!r} appears twice")
        names.add(name)
        if seed != "":
            try:
                check_player_seed(seed)
            except PlayerSeedError as exc:
                raise FairRecordError(f"'fair' player_seeds[{i}] ({name}): {exc}") from None
    fair_message(table=record.table, hand_no=record.hand_no, player_seeds=seeds)  # encodable as UTF-8
