"""The server: listen on the socket, fork a process per command, answer status and stop.

The server imports what commands use once (WARM), then forks for each command: the child
takes the client's standard input, output and error, folder and environment, and runs
simulee.cli.main on its command line, so what it prints, where, and its exit status are
what the command would have without the server, and one command's crash or state is not
the next one's. When no command waits, the server loads what the last commands loaded
(their programs, as they did, and their native code), so the next ones find it loaded.
A command from another version of Simulee, or any command once a module
of Simulee changed on disk since the server started, is bypassed (the client runs it),
and in the second case the server stops.

Run as `python -m simulee.server.daemon` (what `simulee server start` does).
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import select
import signal
import socket
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from interpreter import native
from simulee import __version__
from simulee.frontend.compiler import LOADED, load_program
from simulee.server.client import message_line, log_path, socket_path

# what commands import, imported once here
WARM = ("simulee.cli", "simulee.checker.kernel", "simulee.prover.verdicts", "simulee.prover.solve",
        "simulee.prover.cache", "simulee.report.rootcause", "simulee.report.formats", "simulee.report.html",
        "simulee.scanner.repository", "simulee.exec.runner", "simulee.frontend.device_library", "evolve.search",
        "interpreter.native", "tqdm")
# a check run once at start, so that what a command does the first time in a process (find the compiler, compile
# regular expressions, NumPy's and LLVM's lazy set-up) is done in the server, not in every command
WARM_UP = """__global__ void warm_up(float *data, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? data[i] : 0.0f;
  __syncthreads();
  if (i < n) data[i] = tile[63 - threadIdx.x];
}
"""
REQUEST_SECONDS = 10.0  # for a client to send its request once connected
PACKAGES = ("simulee", "interpreter", "evolve")
KEPT_PROGRAMS = 16  # programs kept loaded for the commands to come
ADOPTED_SECONDS = 2.0  # a program that took longer to load is not loaded again by the server (it would not answer)


@dataclass
class Learned:
    """What a command's process loaded that the server may load too, for the next: its
    programs (compiler.Made), in its folder and environment, and its native code."""

    made: list
    native: set
    cwd: str
    env: dict


class Server:
    def __init__(self, path: Path):
        self.path, self.started, self.served = path, time.time(), 0
        self.children: dict[int, int] = {}  # pid -> the end of the pipe it says what it loaded on
        self.learned: list[Learned] = []
        self.code = _code_stamps()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def serve(self) -> None:
        """Listen until asked to stop (or terminated); the socket is removed on the way out."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            self.path.unlink()  # client.start found no server answering on it
        self.listener.bind(str(self.path))
        self.listener.listen(16)
        self.listener.settimeout(1.0)  # wake to reap finished commands
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} simulee {__version__} server pid {os.getpid()} listening on "
              f"{self.path}", flush=True)
        try:
            while self._serve_one():
                pass
        finally:
            self.listener.close()
            if self.path.exists():
                self.path.unlink()

    def _serve_one(self) -> bool:
        """Take one connection; False when the server is to stop."""
        self._reap()
        self._adopt()  # while no command waits
        try:
            connection, _ = self.listener.accept()
        except socket.timeout:
            return True
        with connection:
            connection.settimeout(REQUEST_SECONDS)
            try:
                message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 4)
                while not message.endswith(b"\n"):
                    more = connection.recv(1 << 20)
                    if not more:
                        raise ValueError("the request ended early")
                    message += more
                request = json.loads(message)
            except (OSError, ValueError) as error:
                print(f"a request could not be read: {error}", flush=True)
                return True
            try:
                return self._answer(connection, request, fds)
            finally:
                for fd in fds:
                    os.close(fd)

    def _answer(self, connection: socket.socket, request: dict, fds: list[int]) -> bool:
        kind = request.get("kind")
        if kind == "status":
            connection.sendall(message_line(self._status()))
            return True
        if kind == "stop":
            connection.sendall(message_line(self._status()))
            return False
        if request.get("version") != __version__:
            connection.sendall(message_line({"bypass": f"the server runs Simulee {__version__}, this is "
                                                f"{request.get('version')}"}))
            return True
        if _code_stamps() != self.code:
            connection.sendall(message_line({"bypass": "Simulee's code changed since the server started: the server "
                                                "stopped ('simulee server start' starts it with the new code)"}))
            return False
        if len(fds) != (4 if request.get("entry") == "device" else 3):
            connection.sendall(message_line({"bypass": "the request came without its standard streams"}))
            return True
        self.served += 1
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(reader)
            _child(self.listener, connection, request, fds, writer)  # never returns
        os.close(writer)
        self.children[child] = reader
        return True

    def _status(self) -> dict:
        self._reap()
        return {"pid": os.getpid(), "version": __version__, "seconds": time.time() - self.started,
                "served": self.served, "running": len(self.children), "kept": len(LOADED.kept or ())}

    def _reap(self) -> None:
        for child, reader in list(self.children.items()):
            try:
                done, _ = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:
                done = child
            if done:
                del self.children[child]
                self._learn(reader)

    def _learn(self, reader: int) -> None:
        """Take what an ended command's process says it loaded (nothing, if it died first)."""
        data = b""
        try:
            while chunk := os.read(reader, 1 << 16):
                data += chunk
            learned = pickle.loads(data)
            learned.made = learned.made[-KEPT_PROGRAMS:]
            self.learned = [*self.learned[-7:], learned]  # the latest commands' only
        except Exception:  # noqa: BLE001 - a process killed while it wrote: nothing learned
            pass
        finally:
            os.close(reader)

    def _adopt(self) -> None:
        """Load what one ended command loaded (its programs, as it did, and its native code)
        so that the processes forked next have it loaded; a command that comes meanwhile is
        served first (what is left waits for the next idle moment)."""
        if not self.learned:
            return
        learned = self.learned[0]
        native.load_kept(learned.native)
        learned.native = set()
        cwd, env = os.getcwd(), dict(os.environ)
        try:
            os.chdir(learned.cwd)
            os.environ.clear()
            os.environ.update(learned.env)
            while learned.made:
                if select.select([self.listener], [], [], 0)[0]:
                    return
                made = learned.made.pop(0)
                if made.seconds > ADOPTED_SECONDS or made.key in LOADED.kept:
                    continue
                try:
                    program = load_program(made.path, made.options, made.siblings)
                    for kernel in program.kernels:  # decoded here, once, not in each command after
                        kernel.code.facts
                    LOADED.take(made, program)
                except Exception as error:  # noqa: BLE001 - the command loaded it; the server need not
                    print(f"{made.path}: not kept loaded: {type(error).__name__}: {error}", flush=True)
            self.learned.pop(0)
        finally:
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            LOADED.made.clear()


def _child(listener: socket.socket, connection: socket.socket, request: dict, fds: list[int],
           learned: int) -> None:
    """Run one command as the client would have, then say what it loaded on `learned` (a
    pipe to the server) and exit with its status."""
    code, had = 2, native.loaded_code()
    LOADED.made.clear()
    try:
        listener.close()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
        for target, fd in enumerate(fds[:3]):  # a device's fourth stays where it came
            os.dup2(fd, target)
        _standard_streams(*request.get("encoding", ["utf-8", "utf-8"]))
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        connection.settimeout(None)
        connection.sendall(message_line({"pid": os.getpid()}))
        code = _entry(request, fds)
    except SystemExit as exit:  # argparse: --help, --version, a usage error
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 2)
    except KeyboardInterrupt:
        code = 130
    except BaseException as error:  # noqa: BLE001 - the child must answer whatever happens
        print(f"simulee: error: internal error in the server: {type(error).__name__}: {error} (its traceback is in "
              f"{log_path()})", file=sys.stderr)
        with open(log_path(), "a") as log:
            traceback.print_exc(file=log)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            connection.sendall(message_line({"exit": code}))
        except OSError:
            pass
        _tell(learned, Learned(LOADED.made, native.loaded_code() - had, request["cwd"], request["env"]))
        os._exit(code if isinstance(code, int) else 2)


def _entry(request: dict, fds: list[int]) -> int:
    """Run what the request asks: a command line, or a built program's device on its end
    of the program's socket pair (the fourth descriptor)."""
    if request.get("entry") == "device":
        from simulee.exec.standalone import main as device

        return device([str(fds[3]), *request["argv"][1:]], program=request.get("program"))
    from simulee.cli import main

    return main(request["argv"])


def _tell(pipe: int, learned: Learned) -> None:
    """Write `learned` to the server's pipe without ever waiting on it (what does not fit
    in the pipe is not said)."""
    try:
        os.set_blocking(pipe, False)
        os.write(pipe, pickle.dumps(learned))
    except Exception:  # noqa: BLE001 - the server learns nothing; the command has ended well
        pass


def _standard_streams(out_encoding: str, err_encoding: str) -> None:
    """sys.stdin, stdout and stderr on the client's descriptors, buffered as Python buffers
    them for a process started on them (stdout by line on a terminal, stderr by line)."""
    sys.stdin = open(0, encoding=out_encoding, closefd=False)
    sys.stdout = open(1, "w", encoding=out_encoding, closefd=False, buffering=1 if os.isatty(1) else -1)
    sys.stderr = open(2, "w", encoding=err_encoding, errors="backslashreplace", closefd=False, buffering=1)


def _code_stamps() -> dict[str, int]:
    """The modification time of every module of Simulee's packages."""
    root = Path(__file__).resolve().parents[2]
    stamps = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            try:
                stamps[str(path)] = path.stat().st_mtime_ns
            except OSError:
                pass
    return stamps


def warm_up() -> None:
    """Import what commands use and check a small kernel, printing nothing."""
    import tempfile

    from simulee.cli import main as command

    for module in WARM:
        importlib.import_module(module)
    with tempfile.TemporaryDirectory(prefix="simulee-server-") as folder, open(os.devnull, "w") as nowhere:
        source = Path(folder) / "warm_up.cu"
        source.write_text(WARM_UP)
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = nowhere
        try:
            command(["check", str(source), "-q", "--grid", "2", "--block", "64", "--arg", "n=100"])
        finally:
            sys.stdout, sys.stderr = out, err


def main() -> int:
    LOADED.keep(KEPT_PROGRAMS)
    warm_up()
    LOADED.made.clear()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    Server(Path(socket_path())).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
