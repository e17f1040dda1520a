"""The device of a program simulee-nvcc built, started by the program itself.

Such a program links Simulee's CUDA runtime (lib64/libcudart_static.a of the toolkit
folder nvcc.py assembles). On its first CUDA call with no `simulee exec` serving it, the
runtime starts `python -m simulee.server.device FD EXECUTABLE` on one end of a socket pair,
which runs `main` here, or in a process forked from a Simulee server when one runs.
The device code is read from the executable: each object simulee-nvcc compiled carries its
source's device IR as the GPU binary clang embeds (FATBIN_SECTIONS, framed by IR_MAGIC).
Every launch is checked as `exec` checks it (runner._Checker). When the program ends (its
runtime asks FINISH at exit, or its end of the socket closes) the findings go to its
stderr in the compiler's format, and, when SIMULEE_REPORT names a folder, into it as
<program>-<pid>.json and .sarif, which `simulee report` merges.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import threading
import time
import zlib
from pathlib import Path

IR_MAGIC = b"SIMULEE-IR\0\0\0\0\0\0"  # 16 bytes, then u64 bytes of zlib-compressed IR text, then the text
REPORT_VERSION = 1
PROGRAM = 0  # the process id of the program served
GRACE_SECONDS = 2.0  # after the program's end, for the device's own report before the watch gives it
CUT_SECONDS = 10.0  # then the launch being run stops, and the checking of what it did ends within this
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")  # where clang puts a GPU binary it embeds


def framed(ir: str) -> bytes:
    """The GPU binary simulee-nvcc embeds for a source of device IR `ir` (8-byte aligned)."""
    packed = zlib.compress(ir.encode(), 6)
    blob = IR_MAGIC + struct.pack("<Q", len(packed)) + packed
    return blob + b"\0" * (-len(blob) % 8)


def device_modules(executable: str) -> list[str]:
    """The device IR of every source linked into `executable`, in link order."""
    from elftools.elf.elffile import ELFFile

    with open(executable, "rb") as handle:
        elf = ELFFile(handle)  # whole-program sources' binaries, then relocatable device code's (-rdc)
        data = b"".join(section.data() for section in map(elf.get_section_by_name, FATBIN_SECTIONS) if section)
    texts, at = [], data.find(IR_MAGIC)
    while at >= 0:
        (size,) = struct.unpack_from("<Q", data, at + len(IR_MAGIC))
        start = at + len(IR_MAGIC) + 8
        texts.append(zlib.decompress(data[start : start + size]).decode())
        at = data.find(IR_MAGIC, start + size)
    return list(dict.fromkeys(texts))  # a source linked twice is one module


def main(argv: list[str] | None = None, program: int | None = None) -> int:
    """Serve the program whose end of the socket pair is FD (argv: FD EXECUTABLE); it is
    process `program`, else this process's parent."""
    from simulee.exec.device import Device
    from simulee.errors import SimuleeError
    from simulee.exec.runner import _Checker, _line_table, program_of

    fd, executable = (argv if argv is not None else sys.argv[1:])[:2]
    global PROGRAM
    PROGRAM = program or os.getppid()  # the program that started this device (its parent until it dies)
    channel = socket.socket(fileno=int(fd))
    start = time.perf_counter()
    try:
        program = program_of(device_modules(executable), executable)
    except (SimuleeError, OSError, zlib.error) as error:
        print(f"simulee: error: {executable}: its device code cannot be loaded: {error}", file=sys.stderr)
        return 2
    warp_model = os.environ.get("SIMULEE_WARP_MODEL", "independent")
    checker = _Checker(program, warp_model, (), None)
    device = checker.device = Device(program, sites=_line_table(executable), observer=checker)
    device.process = f"{Path(executable).name}-{PROGRAM}"
    if os.environ.get("SIMULEE_REPORT"):  # the test suite's processes share their launches
        device.shared_launches = Path(os.environ["SIMULEE_REPORT"]) / "launches"
    ending = _Ending(checker, device, executable, start)
    device.on_finish = ending.locked(ending.report)
    checker.launched = ending.locked(checker.launched)
    threading.Thread(target=ending.watch, args=(channel,), daemon=True).start()
    try:
        path = device.arena_path.encode()
        channel.sendall(struct.pack("<QQ", len(device.arena), len(path)) + path)
        device.serve(channel)
    finally:
        ending.report_once()
        channel.close()
        device.close()
    return 0


def _ended(launch) -> bool:
    """Whether a launch has ended (its run and its checking: the status comes with both)."""
    return bool(launch.status or launch.repeat_of or launch.reused)


class _Ending:
    """What the device says when the program ends: the report, once per new launch seen."""

    def __init__(self, checker, device, executable: str, start: float):
        self.checker, self.device, self.executable, self.start = checker, device, executable, start
        self.reported, self.reported_launches = False, 0
        self.lock = threading.RLock()  # one launch's checking, or the report, at a time

    def locked(self, function):
        def call(*arguments):
            with self.lock:
                return function(*arguments)
        return call

    def report_once(self, timeout: float = -1) -> bool | None:
        """The report, unless it was given since the last launch; whether it was given now
        (None: the launch being checked held on past `timeout` seconds)."""
        if not self.lock.acquire(timeout=timeout):
            return None
        try:
            if self.reported and len(self.device.launches) <= self.reported_launches:
                return False
            self.report()
            return True
        finally:
            self.lock.release()

    def watch(self, channel: socket.socket) -> None:
        """When the program is gone (killed by a time-out while a launch runs, say), stop
        the launch being run (what it did so far is checked, for at most CUT_SECONDS),
        report, and end: the device never outlives its program by much more."""
        poll = select.poll()
        poll.register(channel.fileno(), select.POLLRDHUP)
        while True:
            try:
                events = poll.poll()
            except (OSError, ValueError):
                return
            if any(event & (select.POLLRDHUP | select.POLLHUP | select.POLLNVAL) for _, event in events):
                break
        time.sleep(GRACE_SECONDS)  # a program that ended as programs do: the main thread reports
        now = time.perf_counter()
        self.device.stop_launches(now)
        self.checker.stop_checking(now + CUT_SECONDS)
        while time.perf_counter() < now + CUT_SECONDS and self.device.launches and not _ended(self.device.launches[-1]):
            time.sleep(0.05)  # the launch stops at its next look at the clock; then it is checked
        reported = self.report_once(timeout=2 * CUT_SECONDS)
        if reported:  # the main thread was in a launch: end without it
            os._exit(0)
        if reported is False:  # reported already: the main thread ends the process
            return
        name = Path(self.executable).name
        sys.stderr.write(f"simulee: {name}: the program ended during a launch that did not stop within "
                         f"{2 * CUT_SECONDS:g} s: not reported\n")
        sys.stderr.flush()
        os._exit(1)

    def report(self) -> int:
        """Print and save the findings; the number of errors among them."""
        from simulee.report import formats, rootcause

        self.reported, self.reported_launches = True, len(self.device.launches)
        checks = self.checker.finish()
        documents = [check.to_json() for check in checks]
        bugs = rootcause.bugs(documents)
        errors = sum(1 for cause in bugs.shown(False) if cause["witness"]["severity"] == "error")  # root causes
        seconds = time.perf_counter() - self.start
        text = formats.text(bugs, False, seconds, False) if bugs.shown(False) else ""
        name = Path(self.executable).name
        launches = [launch for launch in self.device.launches if _ended(launch)]
        cut = [launch for launch in self.device.launches if launch not in launches]  # running when the program ended
        repeats = sum(1 for launch in launches if launch.repeat_of)
        reused = sum(1 for launch in launches if launch.reused)
        again = ", ".join(filter(None, (f"{repeats} repeating an earlier one exactly" if repeats else "",
                                        f"{reused} repeating one of another process" if reused else "")))
        again = f" ({again})" if again else ""
        lines = [text.rstrip("\n")] if text else []
        if self.device.missing:
            lines.append(f"simulee: warning: {name}: the device code of {len(self.device.missing)} kernel"
                         f"{'s' if len(self.device.missing) != 1 else ''} it registers is not in the program "
                         f"({', '.join(self.device.missing[:3])}{', ...' if len(self.device.missing) > 3 else ''}): "
                         "its launches fail with cudaErrorInvalidDeviceFunction (an object not built by "
                         "simulee-nvcc?)")
        lines += [f"simulee: {name}: the program ended during launch {launch.number} ({launch.kernel.name}): not "
                  "checked" for launch in cut]
        lines.append(f"simulee: {name}: {len(launches)} launch"
                     f"{'es' if len(launches) != 1 else ''} checked on the program's own data{again}; "
                     f"{errors} error{'s' if errors != 1 else ''}")
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
        folder = os.environ.get("SIMULEE_REPORT")
        if folder:
            self._save(Path(folder), documents, bugs, seconds, launches, cut)
        return errors

    def _save(self, folder: Path, documents: list[dict], bugs, seconds: float, launches: list, cut: list) -> None:
        from simulee.report import formats
        from simulee.exec.collect import absolute

        folder.mkdir(parents=True, exist_ok=True)
        stem = f"{Path(self.executable).name}-{PROGRAM}"  # a.out-123: a name, not a suffix to replace
        record = {"tool": "simulee", "report": REPORT_VERSION, "program": os.path.realpath(self.executable),
                  "directory": os.getcwd(), "pid": PROGRAM, "seconds": round(seconds, 3),
                  "launches": [{"number": launch.number, "kernel": launch.kernel.name, "site": launch.where,
                                "grid": list(launch.grid), "block": list(launch.block),
                                "repeats": launch.repeat_of, "reused": launch.reused,
                                "seconds": round(launch.seconds, 4)}
                               for launch in launches],
                  "kernels": sorted({(kernel.name, kernel.file, kernel.line) for kernel in self._kernels()}),
                  "cut": [[launch.kernel.name, launch.kernel.file] for launch in cut],  # running when it ended
                  "unsupported": list(self.device.unsupported),
                  "checks": [absolute(document, os.getcwd()) for document in documents]}
        for suffix, text in ((".json", json.dumps(record, indent=1)), (".sarif", formats.sarif_text(bugs))):
            partial = folder / f"{stem}{suffix}.part"
            partial.write_text(text)
            partial.replace(folder / f"{stem}{suffix}")

    def _kernels(self):
        """Every kernel of the program's own sources (not the libraries'): launched or not."""
        from simulee.frontend.compiler import own_kernels

        return own_kernels(self.device.program)


if __name__ == "__main__":
    sys.exit(main())
