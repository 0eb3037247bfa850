"""The suite's tiers, markers and backends: what a run collects, on which database, and how large.

The folder a test is in is its tier, and its marker comes from the folder (so they cannot drift):
``engine/``, ``text/``, ``app/`` and ``store/`` are the fast tier; ``e2e/`` (real clients against the
fake platforms) is marked ``e2e``; ``slow/`` (processes killed and restarted, soaks, benchmarks) is
marked ``slow``. A test that runs on PostgreSQL (a ``[postgresql]`` parametrisation, or a PostgreSQL
fixture) is marked ``pg``. ``--backends=sqlite`` (the default) leaves the ``pg`` ones out;
``--backends=all`` runs them. ``make check`` is the fast tier on SQLite; ``make test`` is everything:
``-m "" --backends=all``.

When the run leaves the slow tier out, the heavy loops of the fast tier run small: the knobs below are
set to their small sizes unless the environment sets them. Every other run (``make test``) keeps the
tests' own (large) sizes.
"""

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

TESTS = Path(__file__).parent
TIERS = ("engine", "text", "app", "store", "e2e", "slow")
MARKED_TIERS = {"e2e": "e2e", "slow": "slow"}
"""The tiers whose folder gives their tests a marker of the same name (the default run leaves them out)."""
SLOW_TIMEOUT = 600
"""Seconds a test in tests/slow/ may take (pytest-timeout); the others have pyproject's ``timeout`` (300).
The slowest healthy ones, measured on a loaded 2-core machine: 107 s in tests/slow/ (test_cluster_crash.py,
twenty kills), 62 s elsewhere (tests/engine/test_differential.py at its full 2,000 hands, in make test)."""

# The helpers in support/ import as top-level modules (``from backends import ...``), and so do the
# test modules that others borrow from (``from test_console import Table``): each tier's folder is on the
# path, as the flat tests/ was.
for folder in reversed(("support", *TIERS)):
    sys.path.insert(0, str(TESTS / folder))

from backends import BACKENDS, Backend, Databases  # noqa: E402  (support/ is on the path now)

# The end-to-end harnesses assert too: let pytest explain their failures as it does a test's.
pytest.register_assert_rewrite("discord_harness", "telegram_harness")

SMALL_LOOPS = {
    "STUD_DIFF_HANDS": "200",  # tests/engine/test_differential.py: 2,000 hands in lockstep with PokerKit
    "STUD_PROPERTY_EXAMPLES": "50",  # tests/engine/test_properties.py: 300 hypothesis examples
    "STUD_EXPORT_HANDS": "200",  # tests/text/test_export_{phh,pokerstars}.py: 600 random hands exported
    "STUD_FUZZ_EXAMPLES": "50",  # tests/app/test_robustness.py: 150 random inputs
    "STUD_FUZZ_HANDS": "60",  # tests/app/test_robustness.py: 300 hands of comings and goings
}
"""The fast tier's sizes of the heavy loops; a run that includes the slow tier keeps the tests' own."""

PG_FIXTURES = frozenset({"pg_server", "pg_dsn", "pg_database", "pg_databases"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--backends", choices=("sqlite", "all"), default="sqlite",
                     help="sqlite (default): leave out the tests that run on PostgreSQL (marker pg); "
                          "all: run them too (make test)")


def pytest_configure(config: pytest.Config) -> None:
    for line in ("e2e: a test in tests/e2e/ (real clients against the fake platforms); set from the folder",
                 "slow: a test in tests/slow/ (processes, soaks, benchmarks), or a heavy check marked by hand",
                 "pg: runs on PostgreSQL (a [postgresql] parametrisation or a PostgreSQL fixture); "
                 "only with --backends=all",
                 "sqlite_only(reason): runs only as [sqlite], even with --backends=all: a store test that needs "
                 "the SQLite file itself, or a test whose subject is not the store (the reason is required)"):
        config.addinivalue_line("markers", line)
    if "not slow" in config.option.markexpr:  # the fast tier: the heavy loops small (see SMALL_LOOPS)
        for name, value in SMALL_LOOPS.items():
            os.environ.setdefault(name, value)


def _on_postgresql(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(isinstance(v, str) and v == "postgresql" for v in callspec.params.values()):
        return True
    return not PG_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The markers from the folders (and ``pg`` from the backend); ``--backends=sqlite`` leaves ``pg`` out."""
    for item in items:
        parts = item.path.relative_to(TESTS).parts if item.path.is_relative_to(TESTS) else ()
        if parts and parts[0] in MARKED_TIERS:
            item.add_marker(MARKED_TIERS[parts[0]])
        if parts and parts[0] == "slow":
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
        if _on_postgresql(item):
            item.add_marker("pg")
    if config.getoption("backends") == "all":
        return
    kept = [item for item in items if item.get_closest_marker("pg") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("pg") is not None])
        items[:] = kept


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


# ---------------------------------------------------------------- both backends (tests/support/backends.py)


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
    """The backend this run of the test is on (see tests/support/backends.py): on PostgreSQL, opening the SQLite
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
