"""The application layer's typed arguments: the command line's defaults are theirs, and a
keyword is read as the command line reads its option (the Python API's way in)."""

from __future__ import annotations

import argparse
from dataclasses import fields

import pytest

from simulee.app.args import CheckArgs, EquivArgs, KernelsArgs, ProveArgs, RunArgs, ScanArgs
from simulee.cli import build_parser
from simulee.errors import SimuleeError

COMMANDS = {"kernels": KernelsArgs, "run": RunArgs, "check": CheckArgs, "prove": ProveArgs, "equiv": EquivArgs,
            "scan": ScanArgs, "audit-barriers": ScanArgs, "trace": RunArgs}


def parser_of(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_of_the_command_is_a_field_with_the_same_default(command):
    """A command's arguments have a field for each of its options, with the option's
    default; what else they have is its positional operands (and for trace, which runs
    as run does, run's own options)."""
    options = {a.dest: a for a in parser_of(command)._actions if a.option_strings and a.dest not in ("help", "engine")}
    known = {field.name: field for field in fields(COMMANDS[command])}
    assert set(options) <= set(known)
    operands = {"equiv": {"old", "new"}, "trace": {"path", "printf", "quiet", "trace"}}.get(command, {"path"})
    assert set(known) - set(options) == operands
    for name, action in options.items():
        default = tuple(action.default) if isinstance(action.default, list) else action.default
        assert default == known[name].default, (command, name)


def test_a_keyword_is_read_as_the_command_line_reads_its_option():
    args = CheckArgs.given("check", path="k.cu", seed="7", population=4, max_seconds=2, detect="all",
                           fail_on="data-race", arg=["n=5"], grid=(4, 2), warp_model="lockstep", launch_sites=False)
    assert (args.seed, args.population, args.max_seconds, args.detect) == (7, 4, 2.0, ("all",))
    assert args.fail_on == frozenset({"data-race"}) and args.arg == ("n=5",) and args.grid == "4,2"
    assert args.warp_model == "lockstep" and args.launch_sites is False
    assert CheckArgs.given("check", path="k.cu") == CheckArgs(path="k.cu")


@pytest.mark.parametrize("keywords, message", [
    ({"seed": -1}, "argument --seed: '-1' must not be negative"),
    ({"population": 0}, "argument --population: '0' must be at least 1"),
    ({"warp_model": "sideways"}, "argument --warp-model: invalid choice: 'sideways'"),
    ({"fail_on": "typo"}, "argument --fail-on: 'typo': expected finding types among"),
    ({"max_seconds": "soon"}, "argument --max-seconds: 'soon' is not a number of seconds"),
])
def test_a_value_the_command_line_rejects_is_a_one_line_error(keywords, message):
    with pytest.raises(SimuleeError) as error:
        CheckArgs.given("check", path="k.cu", **keywords)
    assert str(error.value).startswith(message)


def test_an_option_the_command_does_not_have_is_a_type_error():
    with pytest.raises(TypeError, match="simulee prove has no option 'population'"):
        ProveArgs.given("prove", path="k.cu", population=3)
