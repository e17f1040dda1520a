"""The warm server's life: start, commands run in it print what they print without it,
a crashed server (stale socket) and one whose code changed are bypassed with a note, ^C
reaches the command, stop."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels"
pytestmark = pytest.mark.xdist_group("server")  # one server at a time, in a cache folder of its own

RACY = """__global__ void shift(int *data) {
  __shared__ int tile[128];
  tile[threadIdx.x] = data[threadIdx.x];
  data[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("server")


def simulee(cache: Path, *argv: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "SIMULEE_NO_SERVER"}
    environment.update(SIMULEE_CACHE=str(cache), **(env or {}))
    return subprocess.run([sys.executable, "-m", "simulee", *argv], capture_output=True, text=True,
                          env=environment, timeout=600, **kwargs)


def served(cache: Path) -> int:
    status = simulee(cache, "server", "status")
    assert status.returncode == 0, status.stdout + status.stderr
    return int(re.search(r"(\d+) commands served", status.stdout).group(1))


def timeless(text: str) -> str:
    return re.sub(r'"seconds": [\d.e-]+', '"seconds"', re.sub(r"\(\d+\.\d+ s\)", "(s)", text))


@pytest.fixture
def server(cache: Path):
    started = simulee(cache, "server", "start")
    assert started.returncode == 0, started.stderr
    assert "server started" in started.stdout or "already running" in started.stdout
    yield cache
    simulee(cache, "server", "stop")


def test_a_command_in_the_server_prints_what_it_prints_without_it(server, tmp_path):
    source = tmp_path / "racy.cu"
    source.write_text(RACY)
    before = served(server)
    for argv in (["check", str(source), "--block", "128"],
                 ["check", str(source), "--block", "128", "--format", "json"],
                 ["check", str(KERNELS / "reduction.cu"), "-k", "reduce_sum", "--grid", "4", "--block", "256"],
                 ["check", str(tmp_path / "missing.cu")],  # bad input: one line, status 2
                 ["kernels", str(source)], ["--version"]):
        warm = simulee(server, *argv, cwd=tmp_path)
        here = simulee(server, "--no-server", *argv, cwd=tmp_path)
        assert (warm.returncode, timeless(warm.stdout), timeless(warm.stderr)) == \
            (here.returncode, timeless(here.stdout), timeless(here.stderr)), argv
    assert warm.stdout.startswith("simulee ")
    assert served(server) == before + 6  # each ran in the server; --no-server ones did not
    racy = simulee(server, "check", "racy.cu", "--block", "128", "--format", "json", cwd=tmp_path)  # its folder
    assert racy.returncode == 1
    assert {f["type"] for k in json.loads(racy.stdout)["kernels"] for f in k["findings"]} == {"data-race"}
    clean = tmp_path / "clean.cu"
    clean.write_text(RACY.replace("  data[threadIdx.x] = tile", "  __syncthreads();\n  data[threadIdx.x] = tile"))
    assert simulee(server, "check", str(clean), "--block", "128").returncode == 0
    simulee(server, "check", str(clean), env={"SIMULEE_NO_SERVER": "1"})
    assert served(server) == before + 8


def test_the_server_keeps_what_commands_loaded_and_the_next_finds_it(server, tmp_path):
    """Idle, the server loads the programs the last commands loaded; a command then takes
    the program kept loaded and prints what it prints without it."""
    source = tmp_path / "racy.cu"
    source.write_text(RACY)
    first = simulee(server, "check", str(source), "--block", "128", "--format", "json", cwd=tmp_path)
    for _ in range(100):  # the server is idle for a second before it loads
        if re.search(r"[1-9]\d* programs kept loaded", simulee(server, "server", "status").stdout):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the server kept nothing loaded")
    again = simulee(server, "check", str(source), "--block", "128", "--format", "json", cwd=tmp_path)
    assert (again.returncode, timeless(again.stdout)) == (first.returncode, timeless(first.stdout)) == \
        (1, timeless(simulee(server, "--no-server", "check", str(source), "--block", "128", "--format", "json",
                             cwd=tmp_path).stdout))


RACY_PROGRAM = """#include <cstdio>
__global__ void shift(int *data) {
  __shared__ int tile[128];
  tile[threadIdx.x] = data[threadIdx.x];
  data[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
int main() {
  int *data;
  cudaMallocManaged(&data, 128 * sizeof(int));
  for (int i = 0; i < 128; ++i) data[i] = i;
  shift<<<1, 128>>>(data);
  cudaDeviceSynchronize();
  printf("data[0] = %d\\n", data[0]);
  return 0;
}
"""


def test_a_built_programs_device_runs_in_the_server(server, tmp_path):
    """A program simulee-nvcc built starts its device in the server when one runs: the
    same output and findings as with a device of its own."""
    (tmp_path / "racy.cu").write_text(RACY_PROGRAM)
    built = subprocess.run([str(Path(sys.executable).parent / "simulee-nvcc"), "racy.cu", "-o", "racy"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=900)  # with the tests' cache: its runtime built
    assert built.returncode == 0, built.stderr
    environment = {**{k: v for k, v in os.environ.items() if k != "SIMULEE_NO_SERVER"}, "SIMULEE_CACHE": str(server)}
    before = served(server)
    warm = subprocess.run(["./racy"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=environment)
    assert served(server) == before + 1
    alone = subprocess.run(["./racy"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env={**environment, "SIMULEE_NO_SERVER": "1"})
    def placeless(text: str) -> str:  # where the program's memory lies differs between runs
        return re.sub(r"0x[0-9a-f]+", "0x?", timeless(text))

    assert (warm.returncode, warm.stdout, placeless(warm.stderr)) == \
        (alone.returncode, alone.stdout, placeless(alone.stderr))
    assert warm.stdout == "data[0] = 1\n" and "data race" in warm.stderr


SPIN = """__global__ void spin(int *data, int n) {
  int x = 0;
  for (int i = 0; i < n; ++i) x += i ^ data[threadIdx.x];
  data[threadIdx.x] = x;
}
"""


def running(cache: Path) -> int:
    return int(re.search(r"(\d+) running", simulee(cache, "server", "status").stdout).group(1))


def test_interrupting_a_command_interrupts_it_in_the_server(server, tmp_path):
    (tmp_path / "spin.cu").write_text(SPIN)  # runs for hours: only ^C ends it
    command = subprocess.Popen([sys.executable, "-m", "simulee", "check", str(tmp_path / "spin.cu"), "--block", "32",
                                "--arg", "n=2000000000", "--step-limit", str(1 << 50)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**{k: v for k, v in os.environ.items() if k != "SIMULEE_NO_SERVER"},
                                    "SIMULEE_CACHE": str(server)})
    deadline = time.monotonic() + 300
    while running(server) == 0:  # connected and running in the server
        assert command.poll() is None and time.monotonic() < deadline, command.communicate()
        time.sleep(0.2)
    time.sleep(0.5)
    command.send_signal(signal.SIGINT)
    _, err = command.communicate(timeout=120)
    assert command.returncode == 130
    assert "simulee: interrupted" in err
    assert running(server) == 0


def test_a_crashed_server_is_bypassed_with_a_note(server, tmp_path):
    pid = int(re.search(r"pid (\d+)", simulee(server, "server", "status").stdout).group(1))
    os.kill(pid, signal.SIGKILL)  # its socket stays behind
    time.sleep(0.2)
    assert (server / "server.sock").exists()
    source = tmp_path / "racy.cu"
    source.write_text(RACY)
    bypassed = simulee(server, "check", str(source), "--block", "128")
    assert bypassed.returncode == 1
    notes = [line for line in bypassed.stderr.splitlines() if line.startswith("simulee: note:")]
    assert len(notes) == 1 and "not running" in notes[0]
    assert "data race" in bypassed.stdout
    assert not (server / "server.sock").exists()
    status = simulee(server, "server", "status")
    assert status.returncode == 1 and "no server is running" in status.stdout


def test_a_server_whose_code_changed_stops_and_the_command_runs_here(server, tmp_path):
    module = ROOT / "simulee" / "server" / "__init__.py"
    stat = module.stat()
    source = tmp_path / "racy.cu"
    source.write_text(RACY)
    try:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        changed = simulee(server, "check", str(source), "--block", "128")
    finally:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert changed.returncode == 1 and "data race" in changed.stdout
    assert "code changed since the server started" in changed.stderr
    for _ in range(100):
        if not (server / "server.sock").exists():
            break
        time.sleep(0.05)
    assert simulee(server, "server", "status").returncode == 1


def test_start_stop_status(cache):
    assert simulee(cache, "server", "stop").stdout == "simulee: no server is running\n"
    assert simulee(cache, "server", "status").returncode == 1
    assert simulee(cache, "server", "start").returncode == 0
    again = simulee(cache, "server", "start")
    assert again.returncode == 0 and "already running" in again.stdout
    assert "server running" in simulee(cache, "server", "status").stdout
    stopped = simulee(cache, "server", "stop")
    assert stopped.returncode == 0 and "server stopped" in stopped.stdout
    assert not (cache / "server.sock").exists()
    assert simulee(cache, "server", "status").returncode == 1
    assert simulee(cache, "server", "restart").returncode == 2  # a usage error, as any
