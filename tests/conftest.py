from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.store import Migration, Store
from bot.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from bench.pgserver import PostgresServer

sys.path.insert(0, str(Path(__file__).parent))

from backends import BACKENDS, Backend, Databases  # tests/ is on the path now

# The end-to-end harnesses assert too: let pytest explain their failures as it does a test's.
pytest.register_assert_rewrite("discord_harness", "telegram_harness")


# ---------------------------------------------------------------- PostgreSQL
# One throwaway server per test session (bench/pgserver.py), started only if a test asks for it;
# STUDBOT_TEST_PG_DSN points the tests at a server of your own instead. A test that needs
# PostgreSQL fails with the reason when the server cannot start: it is never skipped.

_pg_databases = iter(range(1, 1_000_000))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    given = os.environ.get("STUDBOT_TEST_PG_DSN")
    if given:
        yield PgServer(dsn=given, server=None)
        return
    from bench.pgserver import PostgresServer, PostgresUnavailable

    server = PostgresServer(durable=False)
    try:
        server.start()
    except PostgresUnavailable as exc:
        server.stop()
        pytest.fail(f"this test needs PostgreSQL, which could not be started: {exc}", pytrace=False)
    try:
        yield PgServer(dsn=server.dsn, server=server)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_dsn(pg_server: PgServer) -> str:
    """The DSN of the session's PostgreSQL server (its ``postgres`` database)."""
    return pg_server.dsn


@pytest.fixture
def pg_database(pg_server: PgServer) -> str:
    """The DSN of a new, empty database for this test."""
    return pg_server.create_database(f"t{os.getpid()}_{next(_pg_databases)}")


@dataclass
class PgServer:
    dsn: str
    server: PostgresServer | None

    def create_database(self, name: str) -> str:
        if self.server is not None:
            return self.server.create_database(name)
        import subprocess
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.dsn)
        subprocess.run(["psql", self.dsn, "-v", "ON_ERROR_STOP=1", "-c", f'CREATE DATABASE "{name}"'],
                       check=True, capture_output=True)
        return urlunsplit(parts._replace(path="/" + name))


# ---------------------------------------------------------------- both backends (tests/backends.py)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only(reason): a store test that needs the SQLite file itself; "
                                       "it runs only as [sqlite] (the reason is required)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests that use ``store_backend`` run as [sqlite] and [postgresql]; ``sqlite_only`` ones as [sqlite]."""
    if "store_backend" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("sqlite_only")
    if marker is not None and not marker.kwargs.get("reason"):
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: sqlite_only needs a reason=")
    metafunc.parametrize("store_backend", ["sqlite"] if marker is not None else list(BACKENDS), indirect=True)


@pytest.fixture(scope="session")
def pg_databases(pg_server: PgServer) -> Iterator[Databases]:
    """Fresh databases (migrated clones of a template, kept ready by a thread) for ``store_backend``."""
    databases = Databases(pg_server.dsn)
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture
def store_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The backend this run of the test is on (see tests/backends.py): on PostgreSQL, opening the SQLite
    file ``path`` (:func:`bot.store.open_sqlite`) opens the database that stands for it, and the test's
    databases are dropped after it."""
    if request.param == "sqlite":
        yield Backend("sqlite")
        return
    databases: Databases = request.getfixturevalue("pg_databases")
    backend = Backend("postgresql", databases)

    async def open_path(cls: type[SqliteStore], path: str, *, schema: Sequence[Migration]) -> Store:
        return await backend.open(path, schema=schema)

    with pytest.MonkeyPatch.context() as patch:  # its own: a test's monkeypatch.undo() leaves it in place
        patch.setattr(SqliteStore, "connect", classmethod(open_path))
        try:
            yield backend
        finally:
            databases.drop(list(backend.dsns.values()))
