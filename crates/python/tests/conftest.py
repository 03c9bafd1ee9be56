"""Shared helpers of the Python tests: the repository's files and the `mancala-zero`
binary, the Rust engine the rules are checked against."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "checkpoints" / "shipped"


def engine_binary():
    """The release binary: $MANCALA_ZERO_BIN, else the one cargo built, else on PATH."""
    named = os.environ.get("MANCALA_ZERO_BIN")
    if named:
        return named
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    built = target / "release" / "mancala-zero"
    if built.is_file():
        return str(built)
    return shutil.which("mancala-zero")


class Engine:
    """The binary's engine protocol (docs/protocol.md), one command at a time."""

    def __init__(self, path):
        self.proc = subprocess.Popen(
            [path, "engine", "--no-model"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"engine exited on {command!r}")
            line = line.rstrip("\n")
            if line == "" and lines:
                break
            if line:
                lines.append(line)
        head = lines[0]
        if head.startswith("?"):
            raise RuntimeError(f"engine refused {command!r}: {head}")
        first = head[1:].lstrip() if head.startswith("=") else head
        return "\n".join([first] + lines[1:]).strip()

    def close(self):
        try:
            self.ask("quit")
        except RuntimeError:
            pass
        self.proc.wait(timeout=10)


@pytest.fixture(scope="session")
def engine():
    path = engine_binary()
    if path is None:
        if os.environ.get("MZ_REQUIRE_ENGINE") == "1":
            pytest.fail("MZ_REQUIRE_ENGINE=1 but no mancala-zero binary: set MANCALA_ZERO_BIN")
        pytest.skip("no mancala-zero binary (set MANCALA_ZERO_BIN)")
    e = Engine(path)
    yield e
    e.close()
