"""Progress on a terminal: what a user watching `check`, `scan` and a long `run` sees."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

from conftest import KERNELS, ROOT


def on_a_terminal(*arguments) -> tuple[int, list[str]]:
    """Run simulee with its stderr on a terminal 160 columns wide; its exit status and
    every state of the progress line it drew."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "simulee", *map(str, arguments)], stdout=subprocess.DEVNULL,
                               stderr=slave, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    status = process.wait()
    os.close(master)
    return status, [state.strip() for state in re.split(r"[\r\n]", b"".join(chunks).decode()) if state.strip()]


def test_check_of_one_file_shows_the_kernel_and_its_search():
    status, states = on_a_terminal("check", KERNELS / "reduction.cu")
    assert status == 0
    assert any(state.startswith("compiling reduction.cu") for state in states)
    status, states = on_a_terminal("check", KERNELS / "reduction.cu", "--no-prove")  # proved, it needs no search
    assert any(state.startswith("checking reduce_sum:") and "generation 1/10" in state for state in states)
    assert any(state.startswith("checking reduce_sum:") and re.search(r"launch 1/\d+: \d+/\d+ blocks", state)
               for state in states)


def test_scan_moves_while_files_compile_and_shows_the_time_left_only_once_known(tmp_path):
    status, states = on_a_terminal("scan", ROOT / "tests" / "repo", "-o", tmp_path / "out", "--step-limit", "20000")
    assert status == 1
    counts = [tuple(map(int, match.groups())) for state in states
              if (match := re.search(r"\| (\d+)/(\d+) \[", state))]
    # the bar counts each file compiled, each host source read for its calls of launchers and each kernel checked
    records = [json.loads(line)["record"] for line in (tmp_path / "out" / "scan.jsonl").read_text().splitlines()]
    files, calls, kernels = 7, records.count("calls"), 8
    assert counts[-1][1] == files + calls + kernels  # (the bar draws at most ten times a second: not every state)
    assert any(0 < done < files for done, _ in counts)  # it moved while files were compiling
    growing = [state for state in states if re.search(r"\| \d+/(\d+) \[", state)
               and int(re.search(r"/(\d+) \[", state)[1]) < files + calls + kernels]
    assert growing and all("<" not in state for state in growing)  # no time left while the total grows
    assert any("<" in state for state in states)  # once every file is listed, there is


def test_a_long_run_shows_its_blocks():
    status, states = on_a_terminal("run", KERNELS / "saxpy.cu", "--grid", "4096", "--block", "256", "--arg", "n=1000",
                                   "--arg", "a=2")
    assert status == 0
    assert any(state.startswith("running:") and re.search(r"\| \d+/4096 \[.*block/s\]", state) for state in states)
