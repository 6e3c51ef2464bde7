"""`factgraph cypher-shell ...`: Neo4j's Cypher Shell, fetched from Maven Central, pointed at ours.

Batch jobs run the Cypher templates (`cypher/import_template_*.cypher`) with cypher-shell, which
no Python package provides. Like the server (graph/platform/neo4j_local.py), it is on Maven Central
as a
module with its dependencies (`org.neo4j:cypher-shell`, main class `org.neo4j.shell.Main`), so
Maven resolves it into a cached `lib/` next to the server's jars, at the server's version
(5.26.x for the calendar versions, whose cypher-shell is not on Maven Central: `shell_version`).

Every argument is passed through unchanged. The connection defaults to the server factgraph
itself uses (NEO4J_URI, else the local one, started if it is not running) and its credentials,
handed over as cypher-shell's own environment variables (NEO4J_ADDRESS, NEO4J_USERNAME,
NEO4J_PASSWORD, NEO4J_DATABASE), so an explicit `-a` / `-u` / `-p` / `-d` still wins and the
password never shows in the process list.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

from graph.config import DEFAULT_NEO4J_VERSION, Settings
from graph.platform import maven_lock
from graph.platform.neo4j_local import LocalNeo4j, copy_maven_dependencies
from graph.platform.neo4j_versions import parse as parse_version

MAIN_CLASS = "org.neo4j.shell.Main"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.factgraph</groupId>
  <artifactId>factgraph-cypher-shell</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j</groupId><artifactId>cypher-shell</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""


def shell_version(server_version: str) -> str:
    """cypher-shell's version for a server: the server's own on 5.x; for the calendar versions,
    whose cypher-shell is not on Maven Central (its newest there is 5.26.x), 5.26's, which
    speaks Bolt to them."""
    return DEFAULT_NEO4J_VERSION if parse_version(server_version).calendar else server_version


class CypherShell:
    """The cached cypher-shell of one Neo4j version, and how to run it against our server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.version = shell_version(settings.local.version)
        self.dist_dir = settings.home / "cypher-shell" / self.version
        self.lib_dir = self.dist_dir / "lib"

    def is_provisioned(self) -> bool:
        return (self.lib_dir / ".complete").exists()

    def provision(self) -> None:
        """Resolve cypher-shell and its dependencies from Maven Central once (a few seconds)."""
        if self.is_provisioned():
            return
        LocalNeo4j.require_java()
        lock = maven_lock.LOCKS / f"cypher-shell-{self.version}.tsv"
        if lock.exists():  # straight over HTTPS, in parallel (graph/platform/maven_lock.py)
            try:
                maven_lock.fetch(lock, self.lib_dir, self.version)
                return
            except maven_lock.LockedFetchError as exc:
                print(f"factgraph: {exc}; resolving with Maven instead", file=sys.stderr)
        mvn = LocalNeo4j.require_maven()
        self.dist_dir.mkdir(parents=True, exist_ok=True)
        pom = self.dist_dir / "pom.xml"
        pom.write_text(_POM.format(version=self.version))
        print(
            f"factgraph: fetching Cypher Shell {self.version} from Maven Central (first run only)",
            file=sys.stderr,
        )
        copy_maven_dependencies(mvn, pom, self.lib_dir, "org.neo4j:cypher-shell", self.version)

    def command(self, args: Sequence[str]) -> list[str]:
        java = shutil.which("java") or "java"  # cypher-shell 5.26 runs on the system's Java 17+
        classpath = str(self.lib_dir / "*")
        # A client that runs for seconds: the JIT's first tier only (1.7 -> 1.0 s of CPU for a
        # query); the work of a batch job is the server's.
        jit = "-XX:TieredStopAtLevel=1"
        return [java, "-Xmx512m", jit, "-cp", classpath, MAIN_CLASS, *args]

    def environment(self) -> dict[str, str]:
        """cypher-shell's own connection variables, set to factgraph's server and credentials."""
        env = dict(os.environ)
        env.pop("NEO4J_URI", None)  # cypher-shell refuses both; bolt_uri already honours it
        env["NEO4J_ADDRESS"] = self.settings.bolt_uri
        env["NEO4J_USERNAME"] = self.settings.neo4j_user
        env["NEO4J_PASSWORD"] = self.settings.neo4j_password
        env["NEO4J_DATABASE"] = self.settings.neo4j_database
        return env


def needs_server(args: Sequence[str]) -> bool:
    """False for `--help` / `--version` / `--driver-version`, which connect to nothing."""
    return not any(a in {"-h", "--help", "-v", "--version", "--driver-version"} for a in args)


def run(settings: Settings, args: Sequence[str]) -> int:
    """Provision if needed, make sure our server runs, then become cypher-shell."""
    shell = CypherShell(settings)
    shell.provision()
    if settings.uses_local_neo4j and needs_server(args):
        LocalNeo4j(settings).start()
    command = shell.command(args)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execvpe(command[0], command, shell.environment())  # Ctrl-C reaches the shell itself
    return subprocess.run(command, env=shell.environment(), check=False).returncode
