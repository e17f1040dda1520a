"""The server's client: send a command line to the server, or say why it runs here.

A request is one JSON line on the server's Unix socket, sent with three file descriptors
(the command's standard input, output and error); each answer is one JSON line:
`{"pid": N}` when the process running the command started, `{"exit": N}` when it ended,
or `{"bypass": why}` when the server will not run it (another version of Simulee, code
changed since it started). `{"kind": "status"}` and `{"kind": "stop"}` ask the server
itself. Nothing here may hang: connecting and the first answer have a time limit, and a
server that does not answer is bypassed with a one-line note.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import sys
import time

from simulee import __version__
from simulee.folders import cache_folder

NO_SERVER = "--no-server"  # a top-level option: run here
ANSWER_SECONDS = 10.0  # for the server to connect, fork, and say so
START_SECONDS = 60.0  # for `server start` to see the new server listening
SOCKET_LIMIT = 107  # bytes of a Unix socket's path (sun_path) on Linux


def socket_path() -> str:
    """The server's socket: in the cache folder ($SIMULEE_CACHE, else the user's cache)."""
    return os.path.join(cache_folder(), "server.sock")


def log_path() -> str:
    return os.path.join(cache_folder(), "server.log")


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def forwarded(argv: list[str], entry: str = "cli", fds: tuple[int, ...] = (), **facts) -> int | None:
    """The exit status of `argv` run by the server, or None when it is to run in this
    process: no server, $SIMULEE_NO_SERVER or --no-server, a `server` command, or a server
    that cannot take it (said on stderr in one line, as a note). `entry` is what runs it:
    cli (a `simulee` command line) or device (a built program's device, argv FD EXECUTABLE,
    `fds` its end of the program's socket pair); `facts` go with the request."""
    if os.environ.get("SIMULEE_NO_SERVER") or entry == "cli" and (NO_SERVER in _top_level(argv) or
                                                                   _command(argv) == "server"):
        return None
    path = socket_path()
    if not _is_socket(path):
        return None
    request = {"kind": "run", "entry": entry, "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
               "version": __version__, "encoding": [sys.stdout.encoding, sys.stderr.encoding], **facts}
    try:
        return _forwarded(path, request, [0, 1, 2, *fds])
    except KeyboardInterrupt:  # before the command started in the server: as the command would end
        print("simulee: interrupted", file=sys.stderr)
        return 130


def _forwarded(path: str, request: dict, fds: list[int]) -> int | None:
    try:
        connection = _connect(path)
    except ConnectionRefusedError:
        _remove_stale(path)
        _note(f"the server's socket {path} was left by a server that is not running: removed; running without it")
        return None
    except OSError as error:
        _note(f"the server at {path} cannot be reached ({error.strerror or error}); running without it")
        return None
    with connection:
        return _run(connection, request, fds)


def _run(connection: socket.socket, request: dict, fds: list[int]) -> int | None:
    try:
        socket.send_fds(connection, [message_line(request)], fds)
        lines = _lines(connection)
        first = next(lines)
    except (OSError, StopIteration, ValueError) as error:  # timed out, closed, garbled
        _note(f"the server did not take the command ({_why(error)}); running without it")
        return None
    if "bypass" in first:
        _note(f"{first['bypass']}; running without it")
        return None
    connection.settimeout(None)  # the command takes what it takes; ^C reaches it below
    sent, restore = _forwarding(first["pid"])
    try:
        for answer in lines:
            if "exit" in answer:
                return int(answer["exit"])
    except (OSError, ValueError):
        pass
    finally:
        restore()
    if sent:  # killed by what was forwarded to it, as this process would have been
        return 128 + sent[-1]
    print("simulee: error: the server's process for this command ended without an exit status (run it again "
          f"with {NO_SERVER} to see why)", file=sys.stderr)
    return 2


def _forwarding(pid: int):
    """Send ^C, SIGTERM and SIGHUP on to the command's process while it runs; returns the
    signals sent (a list that grows) and what puts the handlers back."""
    kept, sent = {}, []

    def handler(number, frame):
        sent.append(number)
        try:
            os.kill(pid, number)
        except OSError:
            pass

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        kept[number] = signal.signal(number, handler)
    return sent, lambda: [signal.signal(number, old) for number, old in kept.items()]


def ask(kind: str) -> dict | None:
    """The server's answer to a `status` or `stop`; None when no server listens (a socket
    left by one that is not running is removed)."""
    path = socket_path()
    if not _is_socket(path):
        return None
    try:
        with _connect(path) as connection:
            connection.sendall(message_line({"kind": kind}))
            return next(_lines(connection))
    except ConnectionRefusedError:
        _remove_stale(path)
        return None
    except (OSError, StopIteration, ValueError):
        return None


def start() -> int:
    """`simulee server start`: start the server in the background and wait until it listens."""
    running = ask("status")
    if running is not None:
        print(f"simulee: the server is already running (pid {running['pid']}, socket {socket_path()})")
        return 0
    path = socket_path()
    if len(os.fsencode(path)) > SOCKET_LIMIT:
        return _error(f"the socket path {path} is longer than a Unix socket's {SOCKET_LIMIT} bytes; set "
                      "SIMULEE_CACHE to a shorter folder")
    import subprocess

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(log_path(), "ab") as log:
        daemon = subprocess.Popen([sys.executable, "-m", "simulee.server.daemon"], stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=log, start_new_session=True, close_fds=True,
                                  env=dict(os.environ, SIMULEE_NO_SERVER="1"))
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            return _error(f"the server stopped as it started (exit status {daemon.returncode}); see {log_path()}")
        status = ask("status")
        if status is not None:
            print(f"simulee: server started (pid {status['pid']}, socket {path}); simulee commands now run in it "
                  "('simulee server stop' stops it)")
            return 0
        time.sleep(0.05)
    daemon.kill()
    return _error(f"the server did not listen within {START_SECONDS:.0f} s; see {log_path()}")


def stop() -> int:
    """`simulee server stop`."""
    answer = ask("stop")
    if answer is None:
        print("simulee: no server is running")
        return 0
    deadline = time.monotonic() + ANSWER_SECONDS
    while os.path.exists(socket_path()) and time.monotonic() < deadline:
        time.sleep(0.02)
    print(f"simulee: server stopped (pid {answer['pid']}, {answer['served']} commands served)")
    return 0


def status() -> int:
    """`simulee server status`: 0 when a server runs, 1 when none does."""
    answer = ask("status")
    if answer is None:
        print("simulee: no server is running")
        return 1
    print(f"simulee: server running: pid {answer['pid']}, socket {socket_path()}, up {answer['seconds']:.0f} s, "
          f"{answer['served']} commands served, {answer['running']} running, {answer['kept']} programs kept loaded, "
          f"Simulee {answer['version']}")
    return 0


def _connect(path: str) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(ANSWER_SECONDS)
    try:
        connection.connect(path)
    except OSError:
        connection.close()
        raise
    return connection


def _lines(connection: socket.socket):
    """The JSON objects the server sends, one per line, until it closes."""
    pending = b""
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            return
        pending += chunk
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            yield json.loads(line)


def message_line(message: dict) -> bytes:
    """`message` as one line of the protocol."""
    return json.dumps(message).encode() + b"\n"


def _remove_stale(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _top_level(argv: list[str]) -> list[str]:
    """The options before the command (and the command)."""
    command = _command(argv)
    return argv if command is None else argv[:argv.index(command)]


def _command(argv: list[str]) -> str | None:
    """The subcommand of a `simulee` command line (the first word that is not an option or
    an option's value), or None."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--engine":
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _why(error: BaseException) -> str:
    if isinstance(error, socket.timeout):
        return f"no answer within {ANSWER_SECONDS:.0f} s"
    if isinstance(error, StopIteration):
        return "it closed the connection"
    return str(error) or type(error).__name__


def _note(text: str) -> None:
    print(f"simulee: note: {text}", file=sys.stderr)


def _error(text: str) -> int:
    print(f"simulee: error: {text}", file=sys.stderr)
    return 2
