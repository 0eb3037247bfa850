"""Issue 19, item 1: no token, webhook secret or webhook path on any log line, even at DEBUG.

The bot runs end to end (the real bootstrap, python-telegram-bot against the fake Bot API, polling
and webhook; the real ``python -m adapters.run`` against the loopback Discord) with the logging
that :func:`adapters.logs.configure` sets up (what ``adapters.run.main`` calls) at ``LOG_LEVEL=DEBUG``;
every line written is read back. Each test also checks that lines were written at all, and that
they name the calls the secrets travel in, so that it cannot pass by logging nothing.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
import pytest_asyncio
from discord_harness import ANN as DISCORD_ANN
from discord_harness import ROOT, say, started_fake, table_of_three, until
from fakes.discord_server import GUILD_ID, FakeDiscord
from fakes.telegram_server import FakeBotAPI
from telegram_harness import ANN, BOB, DAN, GROUP, Served, free_port, open_table, press
from telegram_harness import fake as fake  # the fixture
from telegram_harness import say as tg_say

from adapters import logs, run
from adapters.telegram.webhook import SECRET_HEADER, webhook_secret
from bot.core.config import Settings

DISCORD_TOKEN = "MTI3NTk0ODEwMjM0NTY3ODkw.GxYz_Q.secret-discord-token-0123456789abcdefg"
HOOK_PATH = "/tg/hook-7c1d9e"

Capture = Callable[[Settings], io.StringIO]


@pytest_asyncio.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    server = await started_fake()
    yield server
    await server.stop()


@pytest.fixture
def capture() -> Iterator[Capture]:
    """Install the bot's logging (``adapters.logs.configure``) at DEBUG into a buffer; undone after the test."""
    root = logging.getLogger()
    level = root.level
    quiet = {name: logging.getLogger(name).level for name in logs.QUIET}
    added: list[logging.Handler] = []

    def install(settings: Settings) -> io.StringIO:
        stream = io.StringIO()
        added.append(logs.configure(replace(settings, log_level="DEBUG"), stream=stream))
        return stream

    yield install
    for handler in added:
        root.removeHandler(handler)
    root.setLevel(level)
    for name, was in quiet.items():
        logging.getLogger(name).setLevel(was)


def assert_clean(text: str, *secrets: str) -> None:
    for secret in secrets:
        for form in (secret, quote(secret, safe="")):
            leaked = [line for line in text.splitlines() if form in line]
            assert not leaked, f"{len(leaked)} log lines hold a secret, first: {leaked[0]}"


@pytest.mark.asyncio
async def test_item1_telegram_polling_at_debug_logs_no_token(fake: FakeBotAPI, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capture: Capture) -> None:
    served = Served(fake, tmp_path / "t.db", monkeypatch)
    out = capture(served.settings)
    async with served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        link = (await press(fake, DAN, "Join"))["url"]  # Dan never started the bot: a deep link
        fake.command(DAN, DAN, f"/start {link.split('start=')[1]}")
        await fake.wait_for(lambda: fake.private_texts(DAN), what="Dan's answer")
        fake.fail_next("sendMessage")  # a 429: retried, and logged
        await tg_say(fake, ANN, "/stud start")
        await fake.wait_for(lambda: fake.private_texts(BOB), what="Bob's cards")
        logging.getLogger("some.library").warning("request to %s failed", f"{fake.base_url}{fake.token}/getMe",
                                                  exc_info=ValueError(f"bad URL {fake.token}"))
    text = out.getvalue()
    assert len(text.splitlines()) > 50 and "getUpdates" in text and "sendMessage" in text
    assert_clean(text, fake.token)
    assert "<TELEGRAM_TOKEN>/getMe" in text and "bad URL <TELEGRAM_TOKEN>" in text


@pytest.mark.asyncio
async def test_item1_telegram_webhook_at_debug_logs_no_token_secret_or_path(fake: FakeBotAPI, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            capture: Capture) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}{HOOK_PATH}"
    served = Served(fake, tmp_path / "t.db", monkeypatch, webhook=url, webhook_port=port)
    out = capture(served.settings)
    secret = webhook_secret(fake.token)
    async with served:
        assert fake.webhook is not None and fake.webhook["secret_token"] == secret
        for uid in (ANN, BOB):
            fake.command(uid, uid, "/start")
        fake.command(GROUP, ANN, "/stud new")
        await fake.delivered(max(fake.pushed))
        answer = await press(fake, ANN, "Join")
        assert answer["text"].startswith("Seated")
        # a stranger without the secret: 403, in the access log
        async with aiohttp.ClientSession() as session, \
                session.post(url, json={"update_id": 1}, headers={SECRET_HEADER: "wrong"}) as response:
            assert response.status == 403
    text = out.getvalue()
    assert len(text.splitlines()) > 20 and "setWebhook" in text and "answerCallbackQuery" in text
    assert_clean(text, fake.token, secret, HOOK_PATH)
    assert "<TELEGRAM_WEBHOOK_PATH>" in text  # the line that says where the webhook is


@pytest.mark.asyncio
async def test_item1_discord_at_debug_logs_no_token(discord_fake: FakeDiscord, tmp_path: Path) -> None:
    """``python -m adapters.run`` (its ``main`` sets the logging up) at LOG_LEVEL=DEBUG, its stderr read."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": DISCORD_TOKEN,
           "DISCORD_GUILD_ID": str(GUILD_ID), "DISCORD_API_BASE": discord_fake.api_base,
           "DISCORD_GATEWAY_URL": discord_fake.gateway_url, "LOG_LEVEL": "DEBUG", "STUDBOT_DB": str(tmp_path / "d.db"),
           "STUDBOT_BOT_DELAY_MS": "0", "STUDBOT_NEXT_HAND_DELAY": "1"}  # the first deal 1 s after start
    for name in ("TELEGRAM_TOKEN", "STUDBOT_DATABASE_URL"):
        env.pop(name, None)
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "adapters.run", cwd=tmp_path, env=env,
                                                       stdout=asyncio.subprocess.DEVNULL, stderr=sink)
    try:
        await until(lambda: discord_fake.identified.is_set(), timeout=30, what="the bot process to connect")
        await table_of_three(discord_fake)
        assert "join" in await say(discord_fake, DISCORD_ANN, "help")
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 20)
    text = stderr.read_text(encoding="utf-8")
    assert len(text.splitlines()) > 20 and "DEBUG discord." in text and "IDENTIFY" in text
    assert_clean(text, DISCORD_TOKEN)


def test_item1_a_redacted_record_keeps_its_level_and_logger(capture: Capture) -> None:
    out = capture(replace(Settings(), telegram_token="42:AAFsecret-telegram-token"))
    logging.getLogger("httpx").warning("POST https://api.telegram.org/bot%s/getUpdates", "42:AAFsecret-telegram-token")
    logging.getLogger("httpx").info("POST https://api.telegram.org/bot42:AAFsecret-telegram-token/getMe")
    logging.getLogger("studbot").debug("quoted: %s", "42%3AAAFsecret-telegram-token")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # httpx below WARNING is quiet
    assert lines[0].endswith("WARNING httpx: POST https://api.telegram.org/bot<TELEGRAM_TOKEN>/getUpdates")
    assert lines[1].endswith("DEBUG studbot: quoted: <TELEGRAM_TOKEN>")


async def run_bootstrap(tmp_path: Path, **env: str) -> tuple[int, str]:
    """``python -m adapters.run`` with ``env`` (no .env, no other token); its exit code and stderr."""
    full = {k: v for k, v in os.environ.items()
            if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "STUDBOT_DATABASE_URL", "STUDBOT_DB")}
    full.update({"PYTHONPATH": str(ROOT), "STUDBOT_DB": str(tmp_path / "t.db"), **env})
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "adapters.run", cwd=tmp_path, env=full,
                                                   stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, err.decode()


@pytest.mark.asyncio
async def test_redteam_a_rejected_telegram_token_is_one_line_without_the_token(fake: FakeBotAPI,
                                                                               tmp_path: Path) -> None:
    """python-telegram-bot's InvalidToken says "The token `<token>` was rejected": it reached stderr
    in the traceback Python prints, outside the redacting logging."""
    wrong = "999999:AAwrong-SECRET-token"
    code, err = await run_bootstrap(tmp_path, TELEGRAM_TOKEN=wrong, TELEGRAM_BASE_URL=fake.base_url)
    assert code != 0
    assert "Traceback" not in err and wrong not in err and "SECRET" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("studbot: ") and "telegram" in last.lower() and "<TELEGRAM_TOKEN>" in last


@pytest.mark.asyncio
async def test_redteam_an_unopenable_database_is_one_line(fake: FakeBotAPI, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    code, err = await run_bootstrap(tmp_path, TELEGRAM_TOKEN=fake.token, TELEGRAM_BASE_URL=fake.base_url,
                                    STUDBOT_DB=str(tmp_path / "file" / "t.db"))
    assert code != 0 and "Traceback" not in err and fake.token not in err
    assert err.strip().splitlines()[-1].startswith("studbot: cannot open the database")


@pytest.mark.asyncio
async def test_redteam_an_unreachable_platform_is_one_line(tmp_path: Path) -> None:
    code, err = await run_bootstrap(tmp_path, TELEGRAM_TOKEN="123:AAunreachable-SECRET",
                                    TELEGRAM_BASE_URL=f"http://127.0.0.1:{free_port()}/bot")
    assert code != 0 and "Traceback" not in err and "SECRET" not in err
    assert err.strip().splitlines()[-1].startswith("studbot: telegram: cannot connect")


@pytest.mark.asyncio
async def test_redteam_an_unreachable_discord_is_one_line_and_closes_its_session(tmp_path: Path) -> None:
    code, err = await run_bootstrap(tmp_path, DISCORD_TOKEN=DISCORD_TOKEN,
                                    DISCORD_API_BASE=f"http://127.0.0.1:{free_port()}/api/v10")
    assert code != 0 and "Traceback" not in err and DISCORD_TOKEN not in err
    assert "Unclosed client session" not in err
    assert err.strip().splitlines()[-1].startswith("studbot: discord: cannot connect")


def test_redteam_an_error_that_ends_the_bot_is_logged_redacted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """An exception out of ``serve`` (its str holding a Bot API URL, as httpx's do) went to Python's own
    traceback on stderr, past the redacting logging."""
    token = "4242:AAsecret-run-token"

    async def failing(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
        raise RuntimeError(f"HTTP 500 for https://api.telegram.org/bot{token}/getUpdates")

    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "STUDBOT_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TELEGRAM_TOKEN", token)
    monkeypatch.setattr(run, "serve", failing)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        with pytest.raises(SystemExit) as exited:
            run.main([])
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert token not in err and "bot<TELEGRAM_TOKEN>/getUpdates" in err
