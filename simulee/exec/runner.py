"""`simulee exec`: run a whole CUDA program, every kernel launch checked on its real data.

The host side is built into a native executable (hostbuild) and runs in a process of its
own, its standard streams the user's; its kernels run on a Device served here. After each
launch every detector looks at what it did, as `check` does for one kernel's launches, and
what the launches of a kernel show together (redundant barriers) is judged at the end. The
program's crash, exit or time-out ends the run; what was checked until then is reported.
"""

from __future__ import annotations

import bisect
import copy
import functools
import hashlib
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from interpreter.memory import GLOBAL

from simulee.exec import hostbuild, replay
from simulee.checker.kernel import KernelCheck
from simulee.detect import enabled
from simulee.detect.base import KernelRuns, OutOfTime, within
from simulee.detect.parts import PartedLaunch, merge
from simulee.detect.streams import Operation, StreamOrder, StreamRace, footprint
from simulee.exec.device import CHILD_STREAM, Device, DeviceLaunch, Request
from simulee.errors import SimuleeError
from simulee.model.findings import ERROR, Finding, Place, display, launch_of
from simulee.frontend.compiler import CompileOptions

EXIT_STATUS_LOST = 197  # runtime/protocol.h SIMULEE_EXIT_LOST
ENDED_SECONDS = 10.0  # checking goes on past a program that ended during a launch (with no time limit)


@dataclass
class ProgramRun:
    """What running a program under Simulee gave: one KernelCheck per kernel launched, the
    launches in order, how the program ended (`ending`: exited, crashed, timed out) and
    its exit status (negative: the signal that killed it)."""

    checks: list[KernelCheck] = field(default_factory=list)
    launches: list[DeviceLaunch] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)  # "source: what it was built without"
    ending: str = "exited"
    exit_status: int = 0
    seconds: float = 0.0

    def ending_text(self) -> str:
        if self.ending == "timed out":
            return "the program ran out of time and was stopped"
        if self.exit_status < 0:
            name = signal.Signals(-self.exit_status).name if -self.exit_status in signal.valid_signals() else ""
            return f"the program was killed by signal {-self.exit_status}{f' ({name})' if name else ''}"
        return f"the program exited with status {self.exit_status}"


def run_program(sources: list[Path], options: CompileOptions, arguments: list[str], timeout: float = float("inf"),
                warp_model: str = "independent", detect: tuple[str, ...] = (), progress=None,
                save_launches: Path | None = None, say=None, stop_on_fault: bool = False) -> ProgramRun:
    """Build `sources` into a program, run it with `arguments` and check every launch it
    makes (a launch that reads or writes past a buffer fails only with `stop_on_fault`:
    Device.stop_on_fault); `progress(text)` hears of each, `say(text)` of the runtime's
    first build; each launch that runs is saved to `save_launches` (replay.py).
    SimuleeError when it does not build."""
    for source in sources:
        if not source.is_file():
            raise SimuleeError(f"no such file: {source}")
    start = time.perf_counter()
    program = device_program(sources, options)
    with tempfile.TemporaryDirectory(prefix="simulee-exec-") as folder:
        executable, degraded = _built(sources, options, Path(folder), progress, say)
        outcome = ProgramRun(degraded=_merged(program.degraded_sources + degraded))
        checker = _Checker(program, warp_model, detect, progress)
        checker.grace = timeout / 4
        device = checker.device = Device(program, sites=_line_table(str(executable)), observer=checker,
                                         stop_on_fault=stop_on_fault)
        if save_launches is not None:
            device.before_launch = lambda launch, record: replay.save(save_launches, device, launch, record,
                                                                      options, sources)
        try:
            outcome.ending, outcome.exit_status = _run(executable, arguments, device, checker, timeout)
        finally:
            device.close()
    outcome.checks = checker.finish()
    outcome.launches = device.launches
    outcome.unsupported = device.unsupported
    outcome.seconds = time.perf_counter() - start
    return outcome


def device_program(sources: list[Path], options: CompileOptions):
    """The device code of every .cu source, linked into one Program."""
    from simulee.frontend.compiler import load_ir

    cuda = [source for source in sources if source.suffix.lower() in hostbuild.CUDA_SUFFIXES]
    texts = [load_ir(source, options.for_source(source)) for source in cuda]
    return program_of(texts, str(sources[0]) if len(texts) == 1 else "<program>", cuda)


def program_of(texts: list[str], origin: str, sources: list[Path] = ()):
    """The Program of device IR `texts` linked together (of `sources`, when known, for what
    each was compiled without)."""
    from interpreter.loader import LoadError, load_module
    from simulee.frontend.compiler import degradation

    if not texts:  # a program of the runtime API alone (deviceQuery): no device code
        texts = ['target triple = "nvptx64-nvidia-cuda"\n']
    text = texts[0] if len(texts) == 1 else _linked(texts)
    try:
        program = load_module(text, origin)
    except LoadError as error:
        raise SimuleeError(str(error)) from None
    program.managed = managed_variables(text)
    program.digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    program.degraded_sources = [f"{source}: {degradation(text)}" for source, text in zip(sources, texts)
                                if degradation(text)]
    return program


def _merged(degraded: list[str]) -> list[str]:
    """"source: what" lines, one per source, each part said once."""
    parts: dict[str, list[str]] = {}
    for line in degraded:
        source, _, what = line.partition(": ")
        known = parts.setdefault(source, [])
        known += [part for part in what.split("; ") if part not in known]
    return [f"{source}: {'; '.join(what)}" for source, what in parts.items()]


def managed_variables(text: str) -> frozenset[str]:
    """The variables IR `text` annotates as __managed__ (simulee_runtime.h)."""
    marks = set(re.findall(r'^(@[\w.$]+) = [^\n]*c"simulee_managed\\00"', text, re.M))
    annotations = re.search(r"^@llvm\.global\.annotations = .*$", text, re.M)
    if not marks or not annotations:
        return frozenset()
    pairs = re.findall(r"@([\w.$]+)(?: to ptr\))?, ptr (@[\w.$]+)", annotations.group(0))
    return frozenset(name for name, mark in pairs if mark in marks)


def _linked(texts: list[str]) -> str:
    from simulee.frontend.passes import binding, inline_and_promote, one_line

    llvm = binding()
    try:
        module = llvm.parse_assembly(texts[0])
        for text in texts[1:]:
            module.link_in(llvm.parse_assembly(text))
    except RuntimeError as error:
        raise SimuleeError(f"the device code of the sources does not link: {one_line(str(error))}") from None
    return inline_and_promote(str(module), "<program>")


def _built(sources: list[Path], options: CompileOptions, folder: Path, progress, say) -> tuple[Path, list[str]]:
    """The program's executable, built in `folder`, and what its sources were built without."""
    if progress:
        progress("building the program")
    return hostbuild.build(sources, options, folder, say)


def _run(executable: Path, arguments: list[str], device: Device, checker: "_Checker",
         timeout: float) -> tuple[str, int]:
    """Run the program, serving its device, until it ends: (ending, exit status)."""
    device.deadline = time.perf_counter() + timeout
    ours, theirs = socket.socketpair()
    environment = dict(os.environ, SIMULEE_EXEC_FD=str(theirs.fileno()), SIMULEE_EXEC_ARENA=device.arena_path,
                       SIMULEE_EXEC_ARENA_BYTES=str(len(device.arena)))
    try:
        process = subprocess.Popen([str(executable), *arguments], pass_fds=(theirs.fileno(),), env=environment,
                                   start_new_session=True, preexec_fn=_die_with_parent())
    except OSError as error:
        raise SimuleeError(f"cannot run the program: {error}") from None
    theirs.close()
    ended = _ended_by_signals()
    timed_out = threading.Event()
    threading.Thread(target=_bounded_after, args=(process, device, checker, timeout), daemon=True).start()

    def stop():
        timed_out.set()
        _kill(process)

    timer = threading.Timer(timeout, stop) if timeout != float("inf") else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        device.serve(ours)
    except BaseException:
        _kill(process)
        raise
    finally:
        ours.close()
        status = process.wait()
        if timer:
            timer.cancel()
        ended()
    return ("timed out" if timed_out.is_set() else "exited"), status


def _bounded_after(process: subprocess.Popen, device: Device, checker: "_Checker", timeout: float) -> None:
    """When the program ends while its device answers it (a launch runs, or is being
    checked), stop the launch at once and its checking a quarter of the time limit later
    (ENDED_SECONDS with none): nothing waits for the answer, and the run reports soon."""
    process.wait()
    if device.answering:
        now = time.perf_counter()
        device.stop_launches(now)
        checker.stop_checking(now + (timeout / 4 if timeout != float("inf") else ENDED_SECONDS))


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _die_with_parent():
    """What the program's process runs before it starts so that Linux kills it when Simulee
    dies, however Simulee dies (a program that never ends must not outlive the run that
    started it); None where there is no prctl. Looked up here, before the fork: the child
    only calls it (an import after a fork may wait on a lock another thread held)."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _ended_by_signals():
    """Until the returned function is called, SIGTERM and SIGHUP end Simulee by SystemExit
    (128 + N), so the program's process group is killed on the way out."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def leave(number, frame):
        raise SystemExit(128 + number)

    before = {number: signal.signal(number, leave) for number in (signal.SIGTERM, signal.SIGHUP)}

    def restore():
        for number, handler in before.items():
            signal.signal(number, handler)

    return restore


class _Checker:
    """Hears what the program does (Device.observer): runs the detectors on each launch as
    it ends, keeps each kernel's findings, and orders the streams' operations for races
    between them."""

    def __init__(self, program, warp_model: str, detect: tuple[str, ...], progress):
        self.program, self.warp_model, self.progress = program, warp_model, progress
        # a program's launches are those its kernels are used with: a kernel that touches no
        # memory (one that only prints) is what it is, not a launch to ask the user about
        # races last: the costliest, the one that running out of time (checking) cuts
        self.detectors = tuple(sorted((d for d in enabled(detect) if d.name != "vacuous-check"),
                                      key=lambda d: d.name == "data-race"))
        self.checks: dict[str, KernelCheck] = {}
        self.merged: dict[str, dict] = {}
        self.kept: dict[str, KernelRuns] = {}
        self.order = StreamOrder()
        self.device: Device | None = None
        self.operations: dict[int, Operation] = {}  # by launch number: what each launch touched
        self.parted: dict[int, PartedLaunch] = {}  # by launch number: the detection of each launch running
        self.grace = float("inf")  # seconds checking may go on past the program's deadline
        self.partly: set[str] = set()  # kernels checked only in part: the time ran out
        self.reused: set[str] = set()  # kernels a launch of which another process ran (reused)
        self.cut = float("inf")  # when checking stops whatever the program's time (stop_checking)
        self.deadline = [float("inf")]  # the deadline checking runs within now (lowered by stop_checking)

    def starting(self, launch: DeviceLaunch):
        """The Launch.flush of a launch about to run: the detection that judges its trace part
        by part."""
        self._check(launch.kernel)  # each part's footprint is kept for the stream check
        parted = self.parted[launch.number] = PartedLaunch(
            self.program, launch.kernel, self.detectors, self.warp_model,
            each=lambda part: launch.footprint.add(footprint(part.trace, GLOBAL)))
        return lambda part: self._part(parted, part)

    def _part(self, parted: PartedLaunch, part) -> None:
        with within(self.checking()):
            parted.part(part)

    def launched(self, launch: DeviceLaunch) -> None:
        if launch.repeat_of:
            self._repeated(launch)
            return
        if launch.reused:
            self._reused(launch)
            return
        kernel, result = launch.kernel, launch.result
        parted = self.parted.pop(launch.number)  # made as it started (a repeat or a reuse ran nothing)
        check = self._check(kernel)
        entry = dict(launch_of(result), status=result.status, seconds=round(result.seconds, 4),
                     number=launch.number, site=launch.where)
        check.launches.append(entry)
        check.seconds += launch.seconds
        if self.progress:
            self.progress(f"launch {launch.number}: {kernel.name}<<<{'x'.join(map(str, launch.grid))}, "
                          f"{'x'.join(map(str, launch.block))}>>> ({result.seconds:.2f} s)")
        if result.status in ("unsupported", "out-of-memory"):
            check.status, check.error = result.status, result.message
            return
        sharing = self.device is not None and self.device.shared_launches is not None
        found = []
        try:
            with within(self.checking()):
                for finding in parted.finish(result):
                    if sharing:
                        found.append(copy.deepcopy(finding))
                    merge(self.merged[kernel.symbol], finding)
        except OutOfTime:  # what was found is kept; the kernel's barriers are not judged (finish)
            self._out_of_time(check, kernel, f"launch {launch.number} was checked only in part: {OUT_OF_TIME}")
            return
        if parted.parts > 1:  # its trace was judged a part at a time (detect.parts)
            entry["parts"] = parted.parts
        for note in parted.notes:
            if note not in check.notes:
                check.notes.append(note)
        parted.keep(self.kept[kernel.symbol])
        self.kept[kernel.symbol].launches.append(launch_of(result))
        reads, writes, atomics = launch.footprint.joined()
        self.operations[launch.number] = self._ordered(launch, reads, writes, atomics, entry)
        if sharing and not result.trace.dropped:  # what another process repeating it takes as its own
            launch.checked = dict(entry=entry, findings=found, reads=reads, writes=writes, atomics=atomics)

    def checking(self) -> list:
        """The deadline the next checking runs within (detect.base.within): a quarter of the
        program's time limit after it, or the cut stop_checking made; another thread may
        lower it meanwhile."""
        self.deadline = [min(self.device.deadline + self.grace if self.device is not None else float("inf"),
                             self.cut)]
        return self.deadline

    def stop_checking(self, at: float) -> None:
        """End the checking under way at `at` (a time.perf_counter()), and every later one then;
        from any thread."""
        self.cut = min(self.cut, at)
        self.deadline[0] = min(self.deadline[0], at)

    def _out_of_time(self, check: KernelCheck, kernel, note: str) -> None:
        self.partly.add(kernel.symbol)
        if note not in check.notes:
            check.notes.append(note)

    def _reused(self, launch: DeviceLaunch) -> None:
        """A launch that repeats exactly one another process of the test suite ran: its
        findings and footprint are that one's; its barriers are not judged here (the other
        process judged them on it)."""
        checked, kernel = launch.checked, launch.kernel
        check = self._check(kernel)
        entry = dict(checked["entry"], number=launch.number, site=launch.where, reused=launch.reused, seconds=0.0)
        check.launches.append(entry)
        self.reused.add(kernel.symbol)
        if self.progress:
            self.progress(f"launch {launch.number}: {kernel.name}, as {launch.reused}")
        for finding in checked["findings"]:
            merge(self.merged[kernel.symbol], copy.deepcopy(finding))
        self.operations[launch.number] = self._ordered(launch, checked["reads"], checked["writes"],
                                                       checked["atomics"], entry)

    def _repeated(self, launch: DeviceLaunch) -> None:
        """A launch that repeats an earlier one exactly: its findings are that one's; only
        its place among the streams' operations is new."""
        check = self._check(launch.kernel)
        first = self.operations.get(launch.repeat_of)
        base = next((entry for entry in check.launches if entry.get("number") == launch.repeat_of), {})
        check.launches.append(dict(base, number=launch.number, site=launch.where, repeats=launch.repeat_of,
                                   seconds=0.0))
        if self.progress:
            self.progress(f"launch {launch.number}: {launch.kernel.name}, as launch {launch.repeat_of}")
        if first is not None:
            self._ordered(launch, first.reads, first.writes, first.atomics, first.launch)

    def _ordered(self, launch: DeviceLaunch, reads, writes, atomics, entry: dict) -> Operation:
        """The launch as an operation of its stream (what it read, wrote and updated
        atomically), its races with the operations of other streams reported."""
        where = f" at {launch.where}" if launch.site else ""
        operation = Operation(f"launch {launch.number} ({launch.kernel.name}{where})", launch.stream, launch.site,
                              reads, writes, atomics, launch.kernel, launch=entry)
        self._races(self.order.operation(operation))
        return operation

    def transferred(self, destination: int, source: int, count: int, stream: int, blocking: bool, site) -> None:
        spans = [(self.device.span(address, count) if address else None) for address in (destination, source)]
        writes, reads = ({span[0]: (np.array([span[1]]), np.array([span[1] + count]))} if span else {}
                         for span in spans)
        what = ("a fill" if not source else "a copy") + (f" at {display(site[0])}:{site[1]}" if site else "")
        self._races(self.order.operation(Operation(what, stream, site, reads, writes), blocking))

    def ordered(self, request: Request, values: tuple[int, int]) -> None:
        first, second = values
        if request == Request.SYNCHRONIZE:
            self.order.synchronize()
        elif request == Request.STREAM_SYNCHRONIZE:
            self.order.stream_synchronize(first)
        elif request == Request.EVENT_RECORD:
            self.order.record(first, second)
        elif request == Request.STREAM_WAIT:
            self.order.wait(first, second)
        elif request == Request.EVENT_SYNCHRONIZE:
            self.order.event_synchronize(first)
        elif request == Request.STREAM_CREATE and second & NON_BLOCKING:
            self.order.non_blocking.add(first)

    def _races(self, races: list[StreamRace]) -> None:
        for race in races:
            later, earlier = race.later, race.earlier
            kernel = later.kernel or earlier.kernel
            check = self._check(kernel) if kernel is not None else self._host_check(later)
            name = self.device.memory.regions[race.region].name if self.device and self.device.memory.regions[
                race.region] is not None else f"region {race.region}"
            finding = Finding(
                "stream-race", ERROR, check.kernel,
                f"stream race ({race.hazard}, global) between {later.what} in {_stream(later.stream)} and "
                f"{earlier.what} in {_stream(earlier.stream)}: both touch byte {race.offset} of {name} and no "
                "event or synchronization orders them",
                _place(later), _place(earlier), space="global", hazard=race.hazard,
                launch=later.launch or earlier.launch)
            merge(self.merged[check.symbol], finding)

    def _check(self, kernel) -> KernelCheck:
        check = self.checks.get(kernel.symbol)
        if check is None:
            check = self.checks[kernel.symbol] = KernelCheck(kernel.name, kernel.symbol, kernel.file, kernel.line)
            self.merged[kernel.symbol] = {}
            self.kept[kernel.symbol] = KernelRuns(self.program, kernel, self.warp_model)
        return check

    def _host_check(self, operation: Operation) -> KernelCheck:
        """The check copies and fills that race with each other report in: the host code's."""
        if HOST not in self.checks:
            file, line = operation.site or ("", 0)
            self.checks[HOST] = KernelCheck("host code", HOST, file, line)
            self.merged[HOST] = {}
        return self.checks[HOST]

    def finish(self) -> list[KernelCheck]:
        for symbol, check in self.checks.items():
            kept = self.kept.get(symbol)
            if kept is not None and symbol not in self.partly:  # a kernel checked in part is not judged on it
                kept.status = check.status
                try:
                    with within(self.checking()):
                        for detector in self.detectors:
                            kept.found = len(self.merged[symbol])
                            for finding in detector.kernel(kept):
                                merge(self.merged[symbol], finding)
                except OutOfTime:
                    self._out_of_time(check, kept.kernel, f"its barriers were not all judged: {OUT_OF_TIME}")
                check.verdicts = kept.verdicts
        # A barrier is not judged redundant in any kernel reaching it (the instances of a template share it)
        # where a launch of one was not judged whole: its uses there are unseen.
        unseen = {_at(v.place): REUSED_REASON for symbol in self.reused for v in self.checks[symbol].verdicts or ()}
        unseen |= {_at(v.place): PARTLY_REASON for symbol in self.partly for v in self.checks[symbol].verdicts or ()}
        for symbol, check in self.checks.items():
            for verdict in check.verdicts or ():
                if verdict.verdict == "redundant" and _at(verdict.place) in unseen:
                    verdict.verdict, verdict.reason = "not-covered", unseen[_at(verdict.place)]
            findings = [f for f in self.merged[symbol].values()
                        if f.type != "redundant-barrier" or (f.file, f.line, f.column) not in unseen]
            check.findings = sorted(findings, key=lambda f: (f.file, f.line, f.column, f.type))
        return list(self.checks.values())


HOST = "(host)"  # the check of races between copies and fills
OUT_OF_TIME = "checking ran out of time (a quarter of --timeout after the program's)"
PARTLY_REASON = "a launch using it was checked only in part: the time ran out"
REUSED_REASON = "a launch using it repeats one another process ran, which judged it"


def _at(place) -> tuple:
    return place.file, place.line, place.column


GRAPH_NODE_STREAM = 1 << 63  # protocol.h: the streams a graph's nodes run in
NON_BLOCKING = 1  # cudaStreamNonBlocking


def _stream(stream: int) -> str:
    if stream & GRAPH_NODE_STREAM:
        return "a graph node"
    if stream & CHILD_STREAM:
        return f"the stream of block {stream & 0xFFFFFFFF} of launch {stream >> 32 & 0x3FFFFFFF}"
    return "the default stream" if stream == 0 else f"stream {stream:#x}"


def _place(operation: Operation) -> Place | None:
    if not operation.site:
        return None
    access = "launch" if operation.kernel is not None else operation.what.split()[1]
    return Place(access, operation.site[0], operation.site[1], 0)


# ---------------------------------------------------------------------- launch sites


def _line_table(executable: str):
    """A function giving (file, line) of a return address in `executable` (from its DWARF
    line tables): the line of the call before it; None when unknown."""
    from elftools.elf.elffile import ELFFile

    addresses, places = [], []
    try:
        with open(executable, "rb") as handle:
            elf = ELFFile(handle)
            if not elf.has_dwarf_info():
                return lambda address: None
            dwarf = elf.get_dwarf_info()
            for unit in dwarf.iter_CUs():
                if _library_unit(unit):  # libc++, musl, Simulee's runtime: no launch or copy is theirs
                    continue
                program = dwarf.line_program_for_CU(unit)
                if program is None:
                    continue
                header = program.header
                files = header["file_entry"]
                directories = header["include_directory"]
                for entry in program.get_entries():
                    state = entry.state
                    if state is None or state.end_sequence or state.line == 0:
                        continue
                    addresses.append(state.address)
                    places.append((_file_name(files, directories, state.file, header.version), state.line))
    except (OSError, Exception):  # an executable the reader cannot read: no lines, not a failure
        return lambda address: None
    order = sorted(range(len(addresses)), key=addresses.__getitem__)
    addresses = [addresses[i] for i in order]
    places = [places[i] for i in order]

    @functools.cache
    def site(address: int) -> tuple[str, int] | None:
        index = bisect.bisect_right(addresses, address - 1) - 1
        if index < 0 or not places[index][0]:
            return None
        return places[index]

    return site


@functools.cache
def _library_roots() -> tuple[str, ...]:
    from simulee.frontend.cache import cache_root
    from simulee.frontend.compiler import find_clang

    clang = find_clang(None)
    roots = [str(hostbuild.RUNTIME_DIR), str(cache_root())] + ([str(Path(clang.resource_dir))] if clang.bundled else [])
    return tuple(os.path.realpath(root) for root in roots)


def _library_unit(unit) -> bool:
    """Whether a compilation unit of the executable is of a library the build linked in."""
    try:
        top = unit.get_top_DIE()
        name = top.attributes.get("DW_AT_name")
        directory = top.attributes.get("DW_AT_comp_dir")
        path = name.value.decode(errors="replace") if name and isinstance(name.value, bytes) else ""
        if directory and isinstance(directory.value, bytes) and not os.path.isabs(path):
            path = os.path.join(directory.value.decode(errors="replace"), path)
    except Exception:  # a unit the reader cannot name: read its lines
        return False
    return bool(path) and os.path.realpath(path).startswith(_library_roots())


def _file_name(files, directories, number: int, version: int) -> str:
    index = number if version >= 5 else number - 1
    if not 0 <= index < len(files):
        return ""
    entry = files[index]
    name = entry.name.decode(errors="replace") if isinstance(entry.name, bytes) else str(entry.name)
    directory_index = entry.dir_index if version >= 5 else entry.dir_index - 1
    if not os.path.isabs(name) and 0 <= directory_index < len(directories):
        directory = directories[directory_index]
        directory = directory.decode(errors="replace") if isinstance(directory, bytes) else str(directory)
        name = os.path.join(directory, name)
    return os.path.normpath(name)
