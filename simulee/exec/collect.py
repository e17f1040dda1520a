"""`simulee test` and `simulee report`: a project's test command run with every program
simulee-nvcc built checking its launches, and the reports of its processes merged.

Each process of such a program writes <program>-<pid>.json (standalone.py) into the folder
SIMULEE_REPORT names. `merge` makes one check per kernel of them all (findings said once,
launches counted over every process, a barrier needed if some process needed it), lists
the kernels of the programs' own sources no process launched, and the reports are written
as a scan's are (report.html, report.sarif, summary.txt, bugs.csv, findings.csv, kernels.csv,
barriers.csv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from simulee.errors import SimuleeError
from simulee.model.findings import display

DEFAULT_EXIT_ON_ERROR = "1"  # what a process that found errors exits with under `simulee test`
INVENTED = "on data Simulee invented: no test launches this kernel"
UNTESTED_SECONDS = 600  # the most one untested kernel's check may take


@dataclass
class Merged:
    """The processes' reports, merged."""

    processes: int = 0
    programs: set[str] = field(default_factory=set)
    launches: int = 0
    repeats: int = 0
    checks: list[dict] = field(default_factory=list)
    untested: dict[str, list[str]] = field(default_factory=dict)  # file -> kernels no process launched
    unsupported: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)  # launches running when their program ended (killed): not checked
    unreadable: list[str] = field(default_factory=list)
    seconds: float = 0.0


def absolute(document, directory: str):
    """`document` (a check's JSON) with every relative "file" made absolute from `directory`."""
    return _files(document, lambda file: os.path.normpath(os.path.join(directory, file)) if file else file)


def _files(document, change):
    """`document` with every "file" string `change`d."""
    if isinstance(document, dict):
        return {key: (change(value) if key == "file" and isinstance(value, str) else _files(value, change))
                for key, value in document.items()}
    if isinstance(document, list):
        return [_files(value, change) for value in document]
    return document


def merge(folder: Path) -> Merged:
    """The reports in `folder`, merged."""
    if not folder.is_dir():
        raise SimuleeError(f"no such folder: {folder}")
    merged = Merged()
    checks: dict[tuple, dict] = {}
    found: dict[tuple, set] = defaultdict(set)
    kernels: dict[str, set] = defaultdict(set)
    launched: set[tuple] = set()
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text())
            if record.get("tool") != "simulee" or "checks" not in record:
                continue
        except (OSError, ValueError):
            merged.unreadable.append(path.name)
            continue
        merged.processes += 1
        merged.programs.add(record["program"])
        merged.launches += len(record["launches"])
        merged.repeats += sum(1 for launch in record["launches"] if launch.get("repeats") or launch.get("reused"))
        merged.seconds += record.get("seconds", 0.0)
        merged.unsupported += [name for name in record.get("unsupported", []) if name not in merged.unsupported]
        for name, file, _ in record.get("kernels", []):
            kernels[file].add(name)
        for name, file in record.get("cut", []):  # launched, but its program ended while it ran
            launched.add((display(file), name))
            merged.cut.append(f"{name} ({Path(record['program']).name})")
        for check in record["checks"]:
            check = _files(check, display)  # saved with absolute paths (standalone.py): shown as from here
            key = (check["file"], check["kernel"])
            launched.add(key)
            if key not in checks:
                checks[key] = dict(check, findings=[], launches=[], seconds=0.0, notes=[], barriers=[])
            into = checks[key]
            into["launches"] += check["launches"]
            into["barriers"] += check["barriers"]  # judged over every process (redundant.across_kernels)
            into["seconds"] = round(into["seconds"] + check["seconds"], 3)
            into["notes"] += [note for note in check["notes"] if note not in into["notes"]]
            if check["status"] != "ok":
                into["status"], into["error"] = check["status"], check["error"]
            for finding in check["findings"]:
                same = json.dumps({k: v for k, v in finding.items() if k in ("type", "file", "line", "column")}
                                  | {"other": (finding.get("second") or {}).get("line")}, sort_keys=True)
                if same not in found[key]:
                    found[key].add(same)
                    into["findings"].append(finding)
    merged.checks = sorted(checks.values(), key=lambda c: (c["file"], c["line"], c["kernel"]))
    ran = {(file, kernel) for file, kernel in launched}
    for file, names in sorted(kernels.items()):
        left = sorted(name for name in names if (display(file), name) not in ran)
        if left:
            merged.untested[display(file)] = left
    return merged


def check_untested(merged: Merged, compile_commands: str | None, say) -> None:
    """Check the kernels no test launched (`simulee check FILE -k NAME`: launches and data
    Simulee searches), their findings warnings marked INVENTED, added to `merged.checks`;
    each checked then leaves `merged.untested`."""
    for file, names in list(merged.untested.items()):
        for name in names:
            say(f"checking {file}: {name}, which no test launches, on launches and data Simulee searches")
            command = [sys.executable, "-m", "simulee", "check", file, "-k", name, "--format", "json", "-q"]
            command += ["--compile-commands", compile_commands] if compile_commands else []
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=UNTESTED_SECONDS)
                records, why = json.loads(done.stdout or "{}").get("kernels", []), done.stderr.strip()
            except subprocess.TimeoutExpired:
                records, why = [], f"past {UNTESTED_SECONDS} s"
            except ValueError:
                records, why = [], "no report"
            if not records:
                say(f"{file}: {name}: not checked ({(why.splitlines() or ['no report'])[-1]})")
                continue
            for record in records:
                record["notes"] = [*record.get("notes", []), f"checked {INVENTED}"]
                record["findings"] = [dict(f, severity="warning", invented=True,
                                           message=f"{f['message']} ({INVENTED})") for f in record["findings"]]
                merged.checks.append(record)
            merged.untested[file] = [left for left in merged.untested[file] if left != name]
        if not merged.untested[file]:
            del merged.untested[file]


def summary(merged: Merged, bugs) -> str:
    """What the processes did and found, in a few lines."""
    causes = bugs.shown(False)
    errors = sum(1 for cause in causes if cause["witness"]["severity"] == "error")
    again = f" ({merged.repeats} repeating an earlier one exactly, run once)" if merged.repeats else ""
    lines = [f"simulee: {merged.processes} process{'es' if merged.processes != 1 else ''} of "
             f"{len(merged.programs)} program{'s' if len(merged.programs) != 1 else ''}; {merged.launches} launch"
             f"{'es' if merged.launches != 1 else ''} checked, all on the programs' own data{again}; "
             f"{len(merged.checks)} kernel{'s' if len(merged.checks) != 1 else ''} launched; {len(causes)} root "
             f"cause{'s' if len(causes) != 1 else ''} ({errors} error{'s' if errors != 1 else ''}, "
             f"{len(causes) - errors} warning{'s' if len(causes) - errors != 1 else ''}); "
             f"{merged.seconds:.1f} s in Simulee's device"]
    for file, names in merged.untested.items():
        lines.append(f"simulee: {file}: never launched by the tests: {', '.join(names)} "
                     f"(`simulee check {file} -k NAME` searches launches for them, on invented data)")
    if merged.cut:
        lines.append(f"simulee: launches not checked, running when their program ended: {', '.join(merged.cut)}")
    if merged.unsupported:
        lines.append(f"simulee: not supported, called in vain: {', '.join(sorted(set(merged.unsupported)))}")
    for name in merged.unreadable:
        lines.append(f"simulee: warning: {name}: not a report Simulee can read; left out")
    return "\n".join(lines) + "\n"


def write(merged: Merged, bugs, folder: Path, project: str) -> None:
    """report.html, report.sarif, summary.txt and a scan's tables (bugs.csv, findings.csv,
    kernels.csv, barriers.csv) into `folder`."""
    from simulee.report import formats, html
    from simulee.scanner import repository

    folder.mkdir(parents=True, exist_ok=True)
    kernels = [repository._kernel_row({"file": check["file"], "kernel": check["kernel"], "sha256": "", "check": check},
                                project) for check in bugs.records]
    barriers = [repository._barrier_row(barrier, project) for check in bugs.records for barrier in check["barriers"]]
    outputs = {
        "report.html": html.page(bugs, project, merged.seconds),
        "report.sarif": formats.sarif_text(bugs),
        "bugs.csv": formats.table_text(formats.bug_rows(bugs, project, False), formats.CSV_COLUMNS),
        "findings.csv": formats.table_text(formats.finding_rows(bugs.records, project), formats.FINDING_COLUMNS),
        "kernels.csv": formats.table_text(kernels, repository.KERNELS_COLUMNS),
        "barriers.csv": formats.table_text(barriers, repository.BARRIERS_COLUMNS),
        "summary.txt": summary(merged, bugs),
    }
    for name, text in outputs.items():
        partial = folder / (name + ".part")
        partial.write_text(text)
        partial.replace(folder / name)


def run_tests(command: list[str], folder: Path | None, exit_on_error: str | None,
              output_to_stderr: bool = False) -> tuple[int, Path, bool]:
    """Run `command` with every simulee-nvcc program it starts reporting into `folder` (a new
    temporary one when None): (its exit status, the folder, whether the folder is temporary).
    `output_to_stderr`: its standard output goes to stderr (stdout is for a JSON report)."""
    temporary = folder is None
    folder = Path(tempfile.mkdtemp(prefix="simulee-test-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ, SIMULEE_REPORT=str(folder.resolve()))
    environment["SIMULEE_EXIT_ON_ERROR"] = exit_on_error if exit_on_error is not None else \
        os.environ.get("SIMULEE_EXIT_ON_ERROR", DEFAULT_EXIT_ON_ERROR)
    if environment["SIMULEE_EXIT_ON_ERROR"] == "0":  # each program's own status
        del environment["SIMULEE_EXIT_ON_ERROR"]
    started = time.perf_counter()
    try:
        status = subprocess.run(command, env=environment, stdout=sys.stderr if output_to_stderr else None).returncode
    except FileNotFoundError:
        raise SimuleeError(f"no such command: {command[0]}") from None
    except PermissionError:
        raise SimuleeError(f"cannot run {command[0]}: permission denied") from None
    except KeyboardInterrupt:
        status = 130
    print(f"simulee: the command ended with status {status} after {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    return status, folder, temporary
