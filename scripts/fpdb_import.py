"""Import PokerStars hand-history files into a fresh fpdb database with fpdb's own converter and
bulk importer, and check what fpdb stored against the files (issue 25). A developer's tool: fpdb is
no package CI can install.

Set up once (fpdb is open source; its legacy importer runs without its GUI):

    git clone https://github.com/jejellyroll-fr/fpdb-3 /tmp/fpdb      # or any copy of it
    python3 -m venv /tmp/fpdbvenv
    /tmp/fpdbvenv/bin/pip install pytz defusedxml cachetools psutil colorlog PySide6-Essentials numpy \
        pandas beautifulsoup4 pyzmq xlrd aiohttp pymysql 'psycopg[binary]'

Then export some hands (``STUDBOT_EXPORT_SAMPLES=/tmp/samples .venv/bin/python -m pytest -m ""
tests/app/test_export_trackers.py`` writes three tables' exports: a cash table at 5/10, one at
7/14 and a sit-and-go, all from one database) and import them, all into one fpdb database:

    FPDB=/tmp/fpdb READER=$PWD/tests/support /tmp/fpdbvenv/bin/python scripts/fpdb_import.py /tmp/samples/*.txt

It prints, per file, the hands fpdb stored, found duplicate, partial or skipped, and its errors;
the game types and tournaments it filed; and, with ``READER``, every hand's winnings and net per
player and its number of actions as fpdb stored them against the file read by our strict reader
(``"mismatches": []`` when they all agree).

Razz and Stud (issue 21): the files may hold any of the three games (``Razz Limit``, ``7 Card Stud
Limit``, ``7 Card Stud Hi/Lo Limit``: fpdb files them as ``razz``, ``studhi``, ``studhilo``).
``STUDBOT_GAME_SAMPLES=/tmp/samples .venv/bin/python -m pytest tests/text/test_export_pokerstars.py``
writes random Razz and Stud exports there. ``PARSE_ONLY=1`` runs only fpdb's PokerStars converter,
with no database and no GUI (its Qt and zmq imports are stubbed: the converter never uses them),
so the venv needs only ``pytz defusedxml colorlog cachetools``; with ``READER`` it compares each
hand's game, total pot and collected amounts with our strict reader's:

    PARSE_ONLY=1 FPDB=/tmp/fpdb READER=$PWD/tests/support /tmp/fpdbvenv/bin/python scripts/fpdb_import.py \
        /tmp/samples/*.txt tests/data/pokerstars/[78R]*.txt
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

CATEGORY = {"stud8": "studhilo", "stud": "studhi", "razz": "razz"}
"""fpdb's category of each of our games."""


def parse_only(files: list[str]) -> dict[str, Any]:
    """fpdb's converter alone: the hands it parses per file and, with ``READER``, each hand's game,
    total pot and collected amounts against our strict reader's (``"mismatches": []``)."""
    import types
    from unittest import mock

    class _Stub(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            return mock.MagicMock()

    for module in ("PySide6", "PySide6.QtCore", "PySide6.QtWidgets", "PySide6.QtGui", "zmq"):
        sys.modules.setdefault(module, _Stub(module))
    fpdb = Path(os.environ["FPDB"]).resolve()
    sys.path.insert(0, str(fpdb))
    os.chdir(fpdb)
    logging.disable(logging.CRITICAL)
    from fpdb_3_legacy.Configuration import Config  # type: ignore[import-not-found]
    from fpdb_3_legacy.PokerStarsToFpdb import PokerStars  # type: ignore[import-not-found]

    config = Config()
    report: dict[str, Any] = {}
    parsed: dict[tuple[str, str], dict[str, Any]] = {}  # by file and number: two files may share numbers
    for name in files:
        converter = PokerStars(config=config, in_path=name, autostart=True)
        hands = converter.getProcessedHands()
        report[Path(name).name] = {"parsed": len(hands), "errors": converter.numErrors,
                                   "skipped": converter.numSkipped, "partial": converter.numPartial}
        for hand in hands:
            parsed[(name, str(hand.handid))] = {"category": hand.gametype["category"], "total": Decimal(hand.totalpot),
                                        "collected": {k: Decimal(v) for k, v in hand.collectees.items()}}
    if os.environ.get("READER"):
        sys.path.insert(0, os.environ["READER"])
        from pokerstars_reader import read_file  # type: ignore[import-not-found]

        mismatches, checked = [], 0
        for name in files:
            for read in read_file(Path(name).read_text(encoding="utf-8")):
                scale = Decimal(read.scale)
                want = {"category": CATEGORY[read.game], "total": Decimal(read.total) / scale,
                        "collected": {n: Decimal(a) / scale for n, a in read.collected_by().items()}}
                checked += 1
                got = parsed.get((name, str(read.number)))
                if got != want:
                    mismatches.append({"file": Path(name).name, "hand": read.number, "fpdb": got, "read": want})
        report |= {"hands_checked": checked, "mismatches": mismatches}
    return report


def main(files: list[str]) -> dict[str, Any]:
    if os.environ.get("PARSE_ONLY"):
        return parse_only(files)
    fpdb = Path(os.environ["FPDB"]).resolve()
    sys.path.insert(0, str(fpdb))
    os.chdir(fpdb)  # fpdb reads its HUD_config.xml from where it runs
    logging.basicConfig(level=logging.WARNING)
    from fpdb_3_legacy.Configuration import Config
    from fpdb_3_legacy.Database import Database  # type: ignore[import-not-found]
    from fpdb_3_legacy.Importer import Importer  # type: ignore[import-not-found]

    tmp = Path(tempfile.mkdtemp())
    cfg = Config(file="HUD_config.xml")
    db_file = str(tmp / "fpdb.sqlite3")
    params = cfg.get_db_parameters()
    params.update({"db-host": "localhost", "db-server": "sqlite", "db-port": 5432, "db-name": db_file,
                   "db-user": "fpdb", "db-password": "fpdb", "db-backend": 4, "db-databaseName": db_file,
                   "db-path": ""})
    cfg.get_db_parameters = lambda: params
    db = Database(cfg)
    db.recreate_tables()
    importer = Importer(caller=None, settings={"testData": False, "threads": 1}, config=cfg, sql=None)
    importer.database = db
    report: dict[str, Any] = {}
    for name in files:
        copy = tmp / Path(name).name
        shutil.copy(name, copy)
        importer.addImportFile(str(copy), "PokerStars")
        stored, duplicates, partial, skipped, errors = importer.runImport()[:5]
        importer.clearFileList()
        report[Path(name).name] = {"stored": stored, "duplicates": duplicates, "partial": partial,
                                   "skipped": skipped, "errors": errors}
    cursor = db.get_cursor()

    def query(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        cursor.execute(sql, params)
        return list(cursor.fetchall())

    report["hands"] = query("SELECT COUNT(*) FROM Hands")[0][0]
    report["player_rows"] = query("SELECT COUNT(*) FROM HandsPlayers")[0][0]
    report["gametypes"] = query("SELECT type, base, category, limitType, currency, smallBet, bigBet FROM Gametypes")
    report["tourneys"] = query("SELECT t.siteTourneyNo, tt.buyin, tt.fee, tt.currency FROM Tourneys t "
                               "JOIN TourneyTypes tt ON t.tourneyTypeId = tt.id")
    if os.environ.get("READER"):
        report |= compare(files, query)
    return report


def compare(files: list[str], query: Any) -> dict[str, Any]:
    """Each hand's winnings and net per player (in cents, as fpdb keeps them) and its number of actions
    (fpdb stores each ante as one) as fpdb stored them, against the file read by our strict reader."""
    sys.path.insert(0, os.environ["READER"])
    from pokerstars_reader import read_file

    mismatches, checked = [], 0
    for name in files:
        for hand in read_file(Path(name).read_text(encoding="utf-8")):
            won: dict[str, int] = {}
            for who, amount, _ in hand.collected:
                won[who] = won.get(who, 0) + amount
            put = dict(hand.antes)
            for act in hand.acts:
                put[act.name] = put.get(act.name, 0) + act.added
            for who, amount in hand.uncalled:
                put[who] -= amount
            rows = query("SELECT p.name, hp.winnings, hp.totalProfit FROM HandsPlayers hp "
                         "JOIN Hands h ON h.id = hp.handId JOIN Players p ON p.id = hp.playerId "
                         "WHERE h.siteHandNo = ?", (hand.number,))
            got = {r[0]: (r[1], r[2]) for r in rows}
            cents = 100 // hand.scale  # the reader's amounts are cents already where the file has dollars
            want = {who: (won.get(who, 0) * cents, (won.get(who, 0) - put.get(who, 0)) * cents)
                    for _, who, _ in hand.seats}
            actions = query("SELECT COUNT(*) FROM HandsActions a JOIN Hands h ON h.id = a.handId "
                            "WHERE h.siteHandNo = ?", (hand.number,))[0][0]
            checked += 1
            if got != want or actions != len(hand.acts) + len(hand.antes):
                mismatches.append({"hand": hand.number, "fpdb": got, "file": want, "fpdb_actions": actions,
                                   "file_actions": len(hand.acts) + len(hand.antes)})
    return {"hands_checked": checked, "mismatches": mismatches}


if __name__ == "__main__":
    if len(sys.argv) < 2 or "FPDB" not in os.environ:
        sys.exit(__doc__)
    print(json.dumps(main([str(Path(f).resolve()) for f in sys.argv[1:]]), default=str, indent=1))
