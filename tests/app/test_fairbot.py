"""Provably fair decks at the bot's tables (FAIRNESS.md): commitments shown on the board before
the deal, which follows after the table's pause in every path (start, a table that waited for
players, a restart), seeds revealed with the hand's result (or at stop with ``reveal=stop``),
every stored hand file verified by ``python -m engine.verify`` in a real process, tampering
refused, the committed seed used after a restart, and the ``seed`` command's validation.
"""

from __future__ import annotations

import gc
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from backends import execute, rows
from test_console import Table, _spy, _two_players

from bot.core.clock import ManualClock
from engine import HandFile
from engine.verify import verify_hand_file

pytestmark = pytest.mark.usefixtures("store_backend")

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = re.compile(r"Deck #(\d+) ([0-9a-f]{4}…[0-9a-f]{4}) · verify (?:after the hand|when the table stops)")
"""The board's line with a hand's commitment, short (the console prints it when it changes)."""
REVEALED = re.compile(r"seed ([0-9a-f]{4}…[0-9a-f]{4}) · verify (\d+)")
"""The last line of a hand's result: its server seed, short."""
LONG = re.compile(r"[0-9a-f]{64}")


def short(value: str) -> str:
    return f"{value[:4]}…{value[-4:]}"


def _verify_cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.verify", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)


async def _hand_file(db: Path, hand_no: int) -> str:
    [row] = await rows(db, "SELECT hand_file FROM hands WHERE hand_no = ?", (hand_no,))
    assert row[0]
    return str(row[0])


def _index(lines: list[str], pattern: str) -> int:
    return next(i for i, line in enumerate(lines) if re.search(pattern, line))


@pytest.mark.asyncio
async def test_a_hand_committed_before_the_deal_revealed_after_and_verified(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.say("ann", "seed lucky 7")
        await t.start()
        first_commit = _index(t.out, COMMITTED.pattern)
        deal = _index(t.out, r"Hand #1: ann, bob\.")
        cards = _index(t.out, r"^\[dm \w+\] Hand #1, your cards")
        assert first_commit < deal < cards  # the commitment is public before any card is dealt
        [(no, commitment)] = COMMITTED.findall(t.out[first_commit])
        assert no == "1"
        assert not any(REVEALED.search(line) for line in t.out)  # nothing revealed while it is played
        await t.call_down()
        said = "\n".join(t.out)
        [(seed, no)] = REVEALED.findall(said)
        assert no == "1"
        # the next hand's commitment comes on this one's final board, after the reveal
        later = [m for m in COMMITTED.findall(said) if m[0] == "2"]
        assert len(later) == 1 and later[0][1] != commitment
        assert said.index(later[0][1]) > said.index(seed)
        # the stored hand file carries the full record and passes the standalone verifier
        text = await _hand_file(db, 1)
        fair = json.loads(text)["fair"]
        assert short(fair["commitment"]) == commitment and short(fair["server_seed"]) == seed
        assert hashlib.sha256(bytes.fromhex(fair["server_seed"])).hexdigest() == fair["commitment"]
        commitment, seed = fair["commitment"], fair["server_seed"]
        assert fair["table"] == "console:main" and fair["hand_no"] == 1
        assert fair["player_seeds"] == [["ann", "lucky 7"], ["bob", ""]]
        path = tmp_path / "hand1.json"
        path.write_text(text, encoding="utf-8")
        done = _verify_cli(path)
        assert done.returncode == 0 and done.stdout.startswith("fair: "), done.stdout + done.stderr
        # 'verify 1' in chat: the verdict, the values to check by hand, and the one command
        t.bot.fair.files_dir = tmp_path
        answer = await t.say("bob", "verify 1")
        assert "Hand #1 is fair" in answer and commitment in answer and seed in answer
        assert 'ann: "lucky 7", bob: ""' in answer
        written = re.search(r"python -m engine\.verify (\S+)", answer)
        assert written is not None and _verify_cli(Path(written.group(1))).returncode == 0


@pytest.mark.asyncio
async def test_a_tampered_hand_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.start()
        await t.call_down()
        good = json.loads(await _hand_file(db, 1))
        cases = {
            "card": lambda d: d["cards"]["ann"].__setitem__(0, next(c for c in ("As", "Ks", "Qs")
                                                                    if c not in d["cards"]["ann"])),
            "seed": lambda d: d["fair"].__setitem__("server_seed", "00" * 32),
            "player seed": lambda d: d["fair"]["player_seeds"][1].__setitem__(1, "sneaky"),
        }
        for what, tamper in cases.items():
            data = json.loads(json.dumps(good))
            tamper(data)
            path = tmp_path / f"{what}.json"
            path.write_text(json.dumps(data), encoding="utf-8")
            done = _verify_cli(path)
            assert done.returncode == 1 and done.stdout.startswith("unfair: "), (what, done.stdout, done.stderr)
        # the same through the chat: the stored file changed behind the bot's back
        bad = json.loads(json.dumps(good))
        bad["fair"]["player_seeds"][1][1] = "sneaky"
        await execute(db, "UPDATE hands SET hand_file = ? WHERE hand_no = 1", (json.dumps(bad),))
        answer = await t.say("bob", "verify 1")
        assert "Hand #1 fails" in answer and "is fair" not in answer


@pytest.mark.asyncio
async def test_reveal_stop_keeps_seeds_hidden_until_the_table_stops(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        assert "reveal is hand or stop, not 'later'" in await t.say("ann", "config reveal=later")
        assert await t.bot.fair.reveal_mode(t.runtime.table.id) == "hand"  # bad input changed nothing
        assert "Only the table's creator" in await t.say("bob", "config reveal=stop")
        assert "Done" in await t.say("ann", "config reveal=stop")
        await t.start()
        await t.call_down()
        await t.wait(5)  # the next hand is dealt
        await t.call_down()
        await t.wait(5)  # and a third, left in progress
        assert t.runtime.hand is not None and not t.runtime.hand.is_over and t.runtime.table.hand_no == 3
        said = "\n".join(t.out)
        assert not REVEALED.search(said) and "seed revealed when the table stops · then verify 2" in said
        assert "Deck #3 " in said and "verify when the table stops" in said
        commitments = dict(COMMITTED.findall(said))
        assert set(commitments) >= {"1", "2", "3"}
        for no in (1, 2):
            assert json.loads(await _hand_file(db, no))["fair"]["server_seed"] is None
        assert "still hidden" in await t.say("bob", "verify 1")
        start = len(t.out)
        assert "closes after this hand" in await t.say("ann", "stop")  # hand 3 is played out first (item 3)
        assert not REVEALED.search("\n".join(t.out[start:])) and "SHA-256" not in "\n".join(t.out[start:])
        rt = t.runtime
        await t.call_down(rt)
        assert rt.closed
        said = "\n".join(t.out[start:])
        revealed = dict(re.findall(r"#(\d+): ([0-9a-f]{64}) \(SHA-256 [0-9a-f]{64}\)", said))
        assert set(revealed) == {"1", "2", "3"}  # every finished hand, all together, once the last one ends
        for no, seed in revealed.items():
            assert short(hashlib.sha256(bytes.fromhex(seed)).hexdigest()) == commitments[no]
            text = await _hand_file(db, int(no))
            assert json.loads(text)["fair"]["server_seed"] == seed
            path = tmp_path / f"h{no}.json"
            path.write_text(text, encoding="utf-8")
            assert _verify_cli(path).returncode == 0
        assert await rows(db, "SELECT revealed FROM fair_seeds WHERE hand_no = 4") == []  # none committed after


@pytest.mark.asyncio
async def test_a_restart_deals_from_the_committed_seeds(tmp_path: Path) -> None:
    """The hand in progress is rebuilt from its stored seed and seeds; the commitment published for
    the next hand (not dealt yet when the bot stopped) is the one its deck comes from."""
    db = tmp_path / "t.db"
    async with Table(db, seed=4) as t:
        await _two_players(t)
        await t.say("bob", "seed b0b")
        await t.start()
        dealt = list(t.runtime.setup.deck)  # type: ignore[union-attr]
        commitment = COMMITTED.findall("\n".join(t.out))[0][1]
    async with Table(db, seed=99) as t:  # another script seed: only the stored seed can give the same deck
        assert t.runtime.setup is not None and t.runtime.setup.deck == dealt
        assert t.runtime.fair is not None and short(t.runtime.fair.commitment) == commitment
        await t.call_down()
        following = [c for n, c in COMMITTED.findall("\n".join(t.out)) if n == "2"]
    assert len(following) == 1
    async with Table(db, seed=7) as t:
        assert [c for n, c in COMMITTED.findall("\n".join(t.out)) if n == "2"] == following  # said again
        await t.wait(5)  # hand 2, committed before the restart, dealt after it
        assert t.runtime.table.hand_no == 2 and t.runtime.fair is not None
        assert short(t.runtime.fair.commitment) == following[0]
        assert {c for _, c in COMMITTED.findall("\n".join(t.out))} == set(following)  # no new one: the published one
        await t.call_down()
    for no in (1, 2):
        path = tmp_path / f"h{no}.json"
        path.write_text(await _hand_file(db, no), encoding="utf-8")
        done = _verify_cli(path)
        assert done.returncode == 0, done.stdout
    assert HandFile.from_json(await _hand_file(db, 1)).fair.player_seeds == (("ann", ""), ("bob", "b0b"))  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_the_seed_command(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await t.say("ann", "new")
        assert "You are not seated" in await t.say("cat", "seed hello")
        await t.say("ann", "join 100")
        await t.say("bob", "join 100")
        assert "You have no seed" in await t.say("ann", "seed")
        for bad in ("x" * 65, "tab\there", "bell\x07"):
            assert "A seed is 1 to 64 printable characters" in await t.say("ann", f"seed {bad}")
        assert "You have no seed" in await t.say("ann", "seed")  # bad input changed nothing
        assert 'Your seed is now "two  spaces é"' in await t.say("ann", "seed two  spaces é")
        assert 'Your seed at this table: "two  spaces é"' in await t.say("ann", "seed")
        assert 'now "x"' in await t.say("bob", "seed x")
        assert "now" in await t.say("bob", "seed " + "y" * 64)
        await t.start()
        await t.say("bob", "seed later")  # during the hand: counts from the next one
        assert t.runtime.fair is not None
        assert t.runtime.fair.player_seeds == (("ann", "two  spaces é"), ("bob", "y" * 64))
        await t.call_down()
        await t.wait(5)
        assert t.runtime.fair.player_seeds == (("ann", "two  spaces é"), ("bob", "later"))
        assert "verify N" in await t.say("ann", "verify")
        assert "no finished hand #9" in await t.say("ann", "verify 9")


@pytest.mark.asyncio
async def test_item12_seed_text_is_kept_as_typed(tmp_path: Path) -> None:
    """Issue 19 item 12: 'seed abc @1.2' stored "@1.2" (the last word, read as a button's turn token).
    The seed is the whole rest of the line after 'seed', as typed."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        for typed, kept in (("seed abc @1.2", "abc @1.2"), ("stud seed  x  @3.4", "x  @3.4"), ("seed @1.2", "@1.2"),
                            ("/seed@studbot lucky 7", "lucky 7")):
            assert f'Your seed is now "{kept}"' in await t.say("ann", typed)
            assert (await t.bot.fair.player_seeds(t.runtime.table.id))["ann"] == kept


@pytest.mark.asyncio
async def test_reveal_stop_set_between_hands_keeps_the_next_seeds_hidden(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.start()
        await t.call_down()  # hand #1, revealed with its result (the mode is read, and remembered)
        assert {no for _, no in REVEALED.findall("\n".join(t.out))} == {"1"}
        assert "Done" in await t.say("ann", "config reveal=stop")
        await t.wait(5)  # hand #2 is dealt
        await t.call_down()
        said = "\n".join(t.out)
        assert {no for _, no in REVEALED.findall(said)} == {"1"}, "hand #2's seed was shown under reveal=stop"
        assert json.loads(await _hand_file(db, 2))["fair"]["server_seed"] is None


@pytest.mark.asyncio
async def test_player_seeds_are_read_again_for_a_table_restored_anew(tmp_path: Path) -> None:
    """The deal remembers the player seeds and reveal mode it read for the table held in memory (only
    this process's 'seed' and 'config' change them meanwhile); a table restored anew (cluster mode:
    another process may have held it and taken a 'seed') has them read again."""
    from dataclasses import replace

    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.say("bob", "seed b0b")
        await t.start()
        await t.call_down()  # hand 2 committed
        rt = t.runtime
        users = [(p.user, p.name) for p in rt.setup.players]
        assert t.bot.fair.held_reveal_mode(rt.table) == "hand"
        async with t.store.atomic() as tx:  # another holder's 'seed' and 'config reveal=stop' meanwhile
            await tx.execute("UPDATE fair_player_seeds SET seed = 'elsewhere' WHERE user_id = ?", (users[1][0],))
            await tx.execute("INSERT INTO fair_tables (table_id, reveal) VALUES (?, 'stop')", (rt.table.id,))

        class Undo(Exception):
            pass

        with pytest.raises(Undo):
            async with t.store.atomic() as tx:
                held = await t.bot.fair.deal(tx, table=rt.table, hand_no=2, players=users)
                anew = replace(rt.table)
                restored = await t.bot.fair.deal(tx, table=anew, hand_no=2, players=users)
                raise Undo  # nothing dealt
        assert held.player_seeds == (("ann", ""), ("bob", "b0b"))  # remembered: not read back
        assert restored.player_seeds == (("ann", ""), ("bob", "elsewhere"))
        assert t.bot.fair.held_reveal_mode(rt.table) is None  # forgotten: the deal read them for another object
        assert t.bot.fair.held_reveal_mode(anew) == "stop"
        with pytest.raises(Undo):
            async with t.store.atomic() as tx:
                await t.bot.fair.deal(tx, table=rt.table, hand_no=2, players=users)  # read again for this one
                raise Undo
        del anew
        gc.collect()  # an object gone takes its own entry along, not the one read since for the table
        assert t.bot.fair.held_reveal_mode(rt.table) == "stop"
        last = replace(rt.table)
        with pytest.raises(Undo):
            async with t.store.atomic() as tx:
                await t.bot.fair.deal(tx, table=last, hand_no=2, players=users)
                raise Undo
        assert rt.table.id in t.bot.fair._held
        del last
        gc.collect()
        assert rt.table.id not in t.bot.fair._held  # nothing kept for a table object no longer held


@pytest.mark.asyncio
async def test_a_commitment_is_remembered_once_committed_and_only_then(tmp_path: Path) -> None:
    """A seed whose transaction rolled back is drawn and stored again; one committed is known without
    a transaction (a stored seed never changes); a process that knows nothing finds it stored."""
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        table, fair = t.runtime.table, t.bot.fair

        class Undo(Exception):
            pass

        with pytest.raises(Undo):
            async with t.store.atomic() as tx:
                drawn = await fair.commit(tx, table_id=table.id, hand_no=1)
                raise Undo
        assert drawn.new
        assert await rows(db, "SELECT commitment FROM fair_seeds") == []
        stored = await fair.commit_next(table)
        assert stored.new and await rows(db, "SELECT commitment FROM fair_seeds") == [(stored.commitment,)]
        before = t.store.commit_stats.transactions
        again = await fair.commit_next(table)
        assert (again.new, again.commitment, again.server_seed) == (False, stored.commitment, stored.server_seed)
        assert t.store.commit_stats.transactions == before  # known: no transaction to learn it
    async with Table(db) as t:  # another process (or after a restart): read from the database
        again = await t.bot.fair.commit_next(t.runtime.table)
        assert (again.new, again.commitment, again.server_seed) == (False, stored.commitment, stored.server_seed)


# ------------------------------------------------------------ issue 19, item 4: each deck committed before its deal


@pytest.mark.asyncio
async def test_item4_start_shows_the_commitment_and_deals_after_the_pause(tmp_path: Path) -> None:
    """'start' stores and shows hand #1's commitment; the deal comes after the table's pause, with the
    seeds in force then (a seed set meanwhile counts): the deck is fixed before the players' seeds are."""
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        said = await t.say("ann", "start")
        assert t.runtime.hand is None, "dealt in the same command that showed its commitment"
        assert "Dealing in 5 s" in said
        [(no, shown)] = COMMITTED.findall(said)
        assert no == "1"  # shown, not dealt
        [(stored,)] = await rows(db, "SELECT commitment FROM fair_seeds WHERE hand_no = 1")
        assert short(stored) == shown  # stored before it was shown
        assert "Hand #1:" not in await t.wait(4.9)
        await t.say("bob", "seed late")
        assert "Hand #1: ann, bob." in await t.wait(0.1)
        assert t.runtime.fair is not None and t.runtime.fair.commitment == stored
        assert t.runtime.fair.player_seeds == (("ann", ""), ("bob", "late"))


@pytest.mark.asyncio
async def test_item4_a_table_that_waited_for_players_shows_the_commitment_before_the_pause(
        tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.start()
        await t.say("bob", "leave")  # cashed out after this hand: then the table waits for players
        await t.call_down()
        await t.wait(5)
        assert t.runtime.table.hand_no == 1 and t.runtime.table.next_hand_at is None
        assert not [no for no, _ in COMMITTED.findall("\n".join(t.out)) if no == "2"]  # none for a hand not coming
        said = await t.say("cat", "join 100")
        [(no, shown)] = COMMITTED.findall(said)
        assert no == "2" and t.runtime.table.hand_no == 1  # shown when the players came, not dealt
        assert "Hand #2:" not in await t.wait(4.9)
        assert "Hand #2: " in await t.wait(0.1)
        assert t.runtime.fair is not None and short(t.runtime.fair.commitment) == shown


@pytest.mark.asyncio
async def test_item4_a_restart_says_the_stored_commitment_again_and_deals_after_the_pause(tmp_path: Path) -> None:
    """The narrow window: hand #2's seed committed with hand #1's settlement, the process gone before its
    board was seen (or long before the deal was due): the restart shows it again and deals after the pause."""
    db, clock = tmp_path / "t.db", ManualClock()
    async with Table(db, clock=clock) as t:
        await _two_players(t)
        await t.start()
        await t.call_down()
    [(committed,)] = await rows(db, "SELECT commitment FROM fair_seeds WHERE hand_no = 2")
    await clock.advance(60)  # hand #2's deal was due long ago
    async with Table(db, clock=clock) as t:
        assert t.runtime.table.hand_no == 1, "dealt at the restart, its commitment never shown by this process"
        assert COMMITTED.findall("\n".join(t.out)) == [("2", short(committed))]
        assert "Hand #2:" not in await t.wait(4.9)
        assert "Hand #2: ann, bob." in await t.wait(0.1)
        assert t.runtime.fair is not None and t.runtime.fair.commitment == committed


# ---------------------------------------------------------------- issue 19, item 5: verify after the table, export


@pytest.mark.asyncio
async def test_item5_verify_reads_the_last_table_of_the_channel(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        assert "no finished hand #1" in await t.say("bob", "verify 1")  # no table here yet
        await _two_players(t)
        assert "Done" in await t.say("ann", "config reveal=stop")
        await t.start()
        await t.call_down()
        assert "still hidden" in await t.say("bob", "verify 1")
        await t.say("ann", "stop")
        assert "There is no table in this channel" in await t.say("bob", "join")  # closed
        t.bot.fair.files_dir = tmp_path
        answer = await t.say("bob", "verify 1")
        assert "Hand #1 is fair" in answer
        written = re.search(r"python -m engine\.verify (\S+)", answer)
        assert written is not None and _verify_cli(Path(written.group(1))).returncode == 0
        assert "no finished hand #2" in await t.say("bob", "verify 2")


@pytest.mark.asyncio
async def test_item5_export_gives_the_json_hand_file_with_its_fair_record(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        await t.start()
        await t.call_down()
        reply = await t.bot.handle(t.chat.inbound("bob", "export 1"))
        files = {f.name: f.data for f in reply.files}
        assert set(files) == {"stud-hand-1.txt", "stud-hand-1.phh", "stud-hand-1.json", "stud-hand-1.html"}, set(files)
        hand_file = HandFile.from_json(files["stud-hand-1.json"])
        assert hand_file.fair is not None and hand_file.fair.server_seed is not None
        assert hand_file.fair.hand_no == 1 and hand_file.fair.table == "console:main"
        assert verify_hand_file(hand_file).ok
        path = tmp_path / "exported.json"
        path.write_bytes(files["stud-hand-1.json"])
        assert _verify_cli(path).returncode == 0
        await t.wait(5)
        await t.call_down()
        several = await t.bot.handle(t.chat.inbound("bob", "export last 2"))
        assert {f.name for f in several.files} == {"stud-hands-1-2.txt", "stud-hands-1-2.phhs", "stud-hands-1-2.html"}


@pytest.mark.asyncio
async def test_redteam_export_under_reveal_stop_shows_no_folded_down_cards(tmp_path: Path) -> None:
    """Under reveal=stop the seeds stay hidden so that folded cards stay private while the table plays:
    'export N' gave the stored hand file all the same, and it lists every player's cards."""
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _two_players(t)
        assert "Done" in await t.say("ann", "config reveal=stop")
        await t.start()
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        folder = "bob" if player == "ann" else "ann"
        await t.say(folder, "fold")
        stored = json.loads(await _hand_file(db, 1))
        hidden = stored["cards"][folder][:2]  # the folder's down cards, never shown
        reply = await t.bot.handle(t.chat.inbound(player, "export 1"))
        assert "stud-hand-1.json" not in {f.name for f in reply.files}
        for f in reply.files:
            text = f.data.decode()
            assert not any(card in text for card in hidden), (f.name, hidden)
        assert "comes once its server seed is revealed" in reply.text
        await t.wait(5)
        rt = t.runtime
        await t.say("ann", "stop")  # the hand in progress is played out, then every seed revealed
        await t.call_down(rt)
        assert rt.closed
        files = {f.name: f.data for f in (await t.bot.handle(t.chat.inbound(player, "export 1"))).files}
        assert verify_hand_file(HandFile.from_json(files["stud-hand-1.json"])).ok


@pytest.mark.asyncio
async def test_redteam_a_hand_number_past_the_database_is_no_such_hand(tmp_path: Path) -> None:
    """'hand', 'export' and 'verify' with a number past 64 bits sent it to the database, which refused it:
    the apology for a bug, for what a user typed."""
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        await t.call_down()
        huge = "9" * 20
        for command in (f"hand {huge}", f"export {huge}", f"verify {huge}", f"hand {'9' * 40}"):
            answer = await t.say("bob", command)
            assert "went wrong" not in answer and "no finished hand #" in answer, (command, answer)
            assert huge in answer or command.endswith("9" * 40)
        assert "Hand #1 is fair" in await t.say("bob", "verify 1")


# ---------------------------------------------------------------- issue 19, item 6: no long lines in the channel


@pytest.mark.asyncio
async def test_item6_the_commitment_is_on_the_board_and_the_seed_in_the_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        said = _spy(monkeypatch, t.messenger, "announce", lambda kw: str(kw["text"]))
        boards = _spy(monkeypatch, t.messenger, "publish_board", lambda kw: kw["board"])
        await _two_players(t)
        await t.start()
        await t.call_down()
        fair = json.loads(await _hand_file(db, 1))["fair"]
        assert not [text for text in said if LONG.search(text)]  # no 64-digit value in the channel
        assert not [text for text in said if "committed" in text or "server seed" in text]
        [result] = [text for text in said if REVEALED.search(text)]  # one message: the result, then the seed
        assert "Pot " in result and result.splitlines()[-1] == f"seed {short(fair['server_seed'])} · verify 1"
        playing = [b for b in boards if b.hand_no == 1 and not b.final]
        assert playing and {b.deck for b in playing} == {f"Deck #1 {short(fair['commitment'])} · verify after the hand"}
        final = boards[-1]
        assert final.final and final.deck == f"Deck #2 {short(t.runtime.commitment)} · verify after the hand"
