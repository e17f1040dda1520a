"""A progress bar on stderr, drawn only on a terminal (tqdm, imported only then)."""

from __future__ import annotations

import sys


class Progress:
    """A progress bar on stderr, drawn only on a terminal and when not quiet (otherwise
    every call on it does nothing). Its total grows as work is found; the remaining time
    is shown once the total is final (`final`) and some of the work is done."""

    def __init__(self, quiet: bool, what: str, unit: str, total: int = 0):
        self.final = False
        self.bar = _Undrawn(total) if quiet or not sys.stderr.isatty() else _bar(what, unit, total)
        self.what = what

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()

    def grow(self, count: int) -> None:
        self.bar.total += count
        self.bar.refresh()

    def start(self, name: str) -> None:
        """Work on `name` begins."""
        self.bar.set_description_str(name[:60] if name.startswith("compiling ") else f"{self.what} {name[:40]}",
                                     refresh=False)
        self.status("")

    def status(self, text: str) -> None:
        self.bar.set_postfix_str(text)

    def update(self, count: int) -> None:
        if self.final and self.bar.n + count > 0:
            self.bar.bar_format = None
        self.bar.update(count)

    def blocks(self, done: int, total: int) -> None:
        """A launch's progress over its blocks (only drawn when it has several waves), drawn
        after every wave: waves are few, and tqdm's rate limit would hide fast ones."""
        if done < total or self.bar.total:
            self.bar.total = total
            self.final = True
            self.update(done - self.bar.n)
            self.bar.refresh()


def _bar(what: str, unit: str, total: int):
    from tqdm import tqdm  # only for a bar that is drawn

    from simulee.report.formats import WITHOUT_TIME_LEFT

    return tqdm(total=total, desc=what, unit=unit, leave=False, bar_format=WITHOUT_TIME_LEFT)


class _Undrawn:
    """What Progress asks of a tqdm bar, for a bar that is not drawn: counts, no output."""

    def __init__(self, total: int):
        self.total, self.n, self.bar_format = total, 0, None

    def __getattr__(self, name: str):  # close, refresh, update, set_description_str, set_postfix_str
        return lambda *args, **kwargs: None
