"""A throwaway PostgreSQL server for the tests and the benchmarks.

It runs the distribution's PostgreSQL (``/usr/lib/postgresql/<version>/bin``, or the
directory in ``STUDBOT_PG_BIN``) on 127.0.0.1 and a free port, with its data directory
and socket in a new temporary directory, and removes everything when it stops.
PostgreSQL refuses to run as root: as root, the server runs as the ``postgres`` user
the distribution's package creates.

    with PostgresServer() as pg:
        pg.create_database("t1")      # a DSN: postgresql://studbot@127.0.0.1:<port>/t1

Run ``python -m bench.pgserver`` to keep one running in the foreground (it prints its DSN).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

USER = "studbot"
"""The database superuser the server is initialised with (trust authentication, loopback only)."""


class PostgresUnavailable(RuntimeError):
    """The server could not be found or started; the message says why."""


def find_bin() -> Path:
    """The directory of ``initdb``, ``pg_ctl`` and ``postgres``."""
    configured = os.environ.get("STUDBOT_PG_BIN")
    candidates = [configured] if configured else sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name) if Path(p).parent.name
        .isdigit() else 0, reverse=True)
    which = shutil.which("pg_ctl")
    if which and not configured:
        candidates.append(str(Path(which).parent))
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").exists() and (Path(candidate) / "postgres").exists():
            return Path(candidate)
    raise PostgresUnavailable(
        "PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin and PATH; "
        "set STUDBOT_PG_BIN, or install the distribution's package: apt-get install postgresql)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One server: :meth:`start` it (or use ``with``), read :attr:`dsn`, :meth:`stop` it.

    ``durable=False`` (the tests) turns off fsync: the server itself is never killed in a
    test, only bot processes, so what it committed stays committed. The benchmarks keep the
    defaults, so their commits are really flushed.
    """

    def __init__(self, *, durable: bool = True, max_connections: int = 200) -> None:
        self.durable = durable
        self.max_connections = max_connections
        self.port = 0
        self.base: Path | None = None
        self._bin: Path | None = None
        self._as_user: list[str] = []

    @property
    def dsn(self) -> str:
        """The DSN of the ``postgres`` database (use :meth:`create_database` for one of your own)."""
        return self.dsn_of("postgres")

    def dsn_of(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> str:
        """Initialise a data directory and start the server; its DSN."""
        self._bin = find_bin()
        self.base = Path(tempfile.mkdtemp(prefix="studbot-pg-"))
        self.base.chmod(0o755)
        if os.geteuid() == 0:  # PostgreSQL refuses root: run it as the distribution's user
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable("running as root and there is no 'postgres' user to run the server as "
                                          "(the distribution's postgresql package creates it)") from None
            os.chown(self.base, owner.pw_uid, owner.pw_gid)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        data = self.base / "data"
        self._run("initdb", "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
        options = [f"-p {{port}} -k {self.base} -c listen_addresses=127.0.0.1",
                   f"-c max_connections={self.max_connections}"]
        if not self.durable:
            options.append("-c fsync=off -c full_page_writes=off")
        for _attempt in range(5):  # a free port can be taken between the probe and the start
            self.port = free_port()
            try:
                self._run("pg_ctl", "-D", str(data), "-l", str(self.base / "server.log"), "-w", "-t", "60",
                          "-o", " ".join(options).format(port=self.port), "start")
                return self.dsn
            except PostgresUnavailable:
                if "could not bind" not in self.log_tail():
                    raise
        raise PostgresUnavailable(f"no free port to start PostgreSQL on:\n{self.log_tail()}")

    def create_database(self, name: str) -> str:
        """A new empty database; its DSN."""
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, name)
        return self.dsn_of(name)

    def stop(self) -> None:
        """Stop the server at once and remove its files."""
        if self.base is None:
            return
        data = self.base / "data"
        if (data / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
            except PostgresUnavailable:
                pid = int((data / "postmaster.pid").read_text().split()[0])
                os.kill(pid, signal.SIGKILL)
                time.sleep(0.2)
        shutil.rmtree(self.base, ignore_errors=True)
        self.base = None

    def log_tail(self, lines: int = 20) -> str:
        log = self.base / "server.log" if self.base else None
        if log is None or not log.exists():
            return ""
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def _run(self, program: str, *args: str) -> None:
        assert self._bin is not None
        command = [*self._as_user, str(self._bin / program), *args]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.base, check=False)
        if done.returncode != 0:
            raise PostgresUnavailable(
                f"{program} failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()}\n"
                f"{self.log_tail()}".strip())


def main() -> None:
    with PostgresServer() as pg:
        print(pg.dsn, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
