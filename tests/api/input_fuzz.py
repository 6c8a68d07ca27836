"""Malformed-input fuzz of qdot-translate, qdot-opt and qdot-bench: bad input must give a diagnostic, never a crash.

The template fuzzes (tests/emulator) build random *valid* kernels and check what they compute;
this one damages valid inputs — the examples and the lit tests' inputs — a token or a line at a
time (delete, replace with a token another input uses, duplicate, change a number) and compiles
each, in this process, either through qdot-translate for a random target or, for a lit input,
through qdot-opt with the pipeline of one of its RUN lines (so each pass also meets damaged
input of the kind it is tested with), or (one case in eight) through qdot-bench, whose array
planning from the kernel's descriptors runs before it compiles (``bench_argv``; a third of those then run
one or two CTAs of the compiled kernel on the PTX emulator). A case fails when the tool would have reported an
internal error (an exception other than a usage error escaping the tool's ``run``) or a pass
produced IR that does not verify (``PassOutputError``: the input verified, so the pass is
wrong). Each failure is written out as a reproducer.

    python -m tests.api.input_fuzz --seconds 600 --seed 7 --out /tmp/qdot-fuzz

``tests/api/test_input_fuzz.py`` runs a fixed, seeded batch of cases in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from compiler.cli import bench, opt, translate
from compiler.cli.common import SPLIT_MARKER, ToolError

ROOT = Path(__file__).resolve().parents[2]
TARGETS = (
    ("--target", "mlir"),
    ("--target", "llvm", "--arch", "sm_90"),
    ("--target", "ptx", "--arch", "sm_90"),
    ("--target", "ptx", "--arch", "sm_90a"),
    ("--target", "ptx", "--arch", "sm_120a"),
    ("--target", "agx3b"),
    ("--target", "agx3c", "--format", "hex"),
)
NUMBERS = (0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 1000, 65536, 2**31, 2**40)
_TOKEN = re.compile(r'[A-Za-z_0-9.!#"%<>]+|\S')
_NUMBER = re.compile(r"\d+")
_INDEX_PARAM = re.compile(r"%(\w+): index")
_SIGNATURE = re.compile(r"func\.func @\w+\((.*?)\)\s*(?:attributes|\{|->)", re.S)
SHAPE_VALUES = (0, 1, 3, 8, 16, 64, 100, 128, 256, 4096, 2**31)
GRIDS = ("1", "2, 3", "3, 2, 2", "cdiv(m, 128)", "cdiv(n, 64), 4", "0", "7, 1, 2", "max(m, 1)", "1, 0", "65536, 65536")
_RUN_PIPELINE = re.compile(r"RUN:\s*(?:not\s+)?qdot-opt\b[^|]*?(?:-p|--passes)[ =]'([^']*)'")
PASS_BUG = "a compiler bug, not a problem of the input"


@dataclass(frozen=True)
class Seed:
    source: str
    text: str
    pipelines: tuple[str, ...]
    """The qdot-opt pipelines of the source file's RUN lines."""


@dataclass(frozen=True)
class Failure:
    source: str
    argv: tuple[str, ...]
    text: str
    report: str
    key: str
    """What makes two failures the same bug: the exception type and the innermost qdot frame."""


class Slow(Exception):
    """A case that ran past its time limit (``time_limit``). Here not a failure (a damaged tile size
    can ask for a very large kernel): counted and reported; helper_fuzz counts it as one."""


def seed_inputs(root: Path = ROOT) -> list[Seed]:
    """Every chunk of the examples and lit inputs that holds a qdot or qgpu operation."""
    files = sorted(root.glob("examples/*.mlir")) + sorted(root.glob("tests/lit/**/*.mlir"))
    seeds: list[Seed] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        pipelines = tuple(dict.fromkeys(_RUN_PIPELINE.findall(text)))
        for chunk in text.split(SPLIT_MARKER):
            if "qdot." in chunk or "qgpu." in chunk:
                seeds.append(Seed(str(path.relative_to(root)), chunk, pipelines))
    return seeds


def mutate(text: str, rng: random.Random) -> str:
    spans = [m.span() for m in _TOKEN.finditer(text)]
    if not spans:
        return text
    start, end = spans[rng.randrange(len(spans))]
    kind = rng.randrange(6)
    if kind == 0:
        return text[:start] + text[end:]
    if kind == 1:
        other_start, other_end = spans[rng.randrange(len(spans))]
        return text[:start] + text[other_start:other_end] + text[end:]
    if kind == 2:
        numbers = list(_NUMBER.finditer(text))
        if not numbers:
            return text
        number = rng.choice(numbers)
        return text[:number.start()] + str(rng.choice(NUMBERS)) + text[number.end():]
    lines = text.split("\n")
    index = rng.randrange(len(lines))
    if kind == 3:
        del lines[index]
    elif kind == 4:
        lines.insert(rng.randrange(len(lines)), lines[index])
    else:
        lines[index] = lines[index] + " " + text[start:end]
    return "\n".join(lines)


_PIPELINE_TOKEN = re.compile(r"[A-Za-z_0-9.-]+|\S")
PIPELINE_PIECES = ("{", "}", "(", ")", ",", "=", " ", "builtin.module(", "func.func(", "true", "false", "-1", "0",
                   "3", "2147483648", "1.5", '"', "arch", "num-stages", "strategy", "qdot-pipeline", "sm_90")


def damage_pipeline(argv: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """One case in four of those with a pass pipeline gets it damaged a token at a time (deleted,
    replaced, an option value changed): the pipeline text's checks must refuse it by name
    (``tool: error:``), never crash."""
    if "-p" not in argv or rng.randrange(4):
        return argv
    at = argv.index("-p") + 1
    text = argv[at]
    for _ in range(rng.randint(1, 3)):
        spans = [m.span() for m in _PIPELINE_TOKEN.finditer(text)] or [(0, 0)]
        start, end = spans[rng.randrange(len(spans))]
        kind = rng.randrange(3)
        piece = "" if kind == 0 else rng.choice(PIPELINE_PIECES) if kind == 1 else text[start:end] * 2
        text = text[:start] + piece + text[end:]
    return (*argv[:at], text, *argv[at + 1:])


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def expire(signum, frame):  # noqa: ANN001, ARG001
        raise Slow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _key(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if str(ROOT) in f.filename and "/.venv/" not in f.filename] or frames
    frame = ours[-1]
    return f"{type(err).__name__} at {Path(frame.filename).name}:{frame.lineno}"


INSTRUMENT_FLAGS = ((), (), (), (), (), ("--print-ir-before-all",), ("--print-ir-after-change",),
                    ("--print-ir-after-failure",), ("--timing",), ("--remarks",))
"""What ``compiler.cli.instrument`` adds to a case (one in two cases gets one; ``--remarks``
makes every pass build its decisions' messages, on damaged input too)."""


def bench_argv(text: str, rng: random.Random) -> tuple[str, ...]:
    """qdot-bench's arguments for a damaged kernel: every ``index`` parameter of its first function given a value
    (one case in four leaves one out or names one the kernel lacks), a grid expression, the default timing — so
    the arrays are planned from the damaged kernel's descriptors, then it compiles and, without a GPU, refuses to
    time (a ``qdot-bench: error:``). Planning runs before compiling: on IR that verifies, never a traceback.
    One case in three runs the first CTA (or the first and the last) on the emulator instead (``--emulate
    --ctas``): the damaged kernel, once compiled, meets the emulator's checks, whose findings are diagnostics too."""
    signature = _SIGNATURE.search(text)
    names = list(dict.fromkeys(_INDEX_PARAM.findall(signature.group(1) if signature else ""))) or ["m"]
    values = {name: rng.choice(SHAPE_VALUES) for name in names}
    if rng.randrange(4) == 0:
        if rng.randrange(2):
            values.pop(rng.choice(names))
        else:
            values["q"] = 1
    shape = ",".join(f"{name}={value}" for name, value in values.items()) or "m=1"
    argv = ("qdot-bench", "--shape", shape, "--grid", rng.choice(GRIDS), "--flops", "1")
    if rng.randrange(3) == 0:  # drawn last: the arguments above are what the seed drew before
        argv += ("--emulate", "--ctas", rng.choice(("0", "0,-1")))
    return argv


def run_case(path: Path, argv: tuple[str, ...], limit_s: float) -> tuple[str, str | None]:
    """('ok' | 'slow' | 'fail', report) for compiling ``path`` with ``argv`` (qdot-translate's
    arguments, or qdot-opt's after a leading ``qdot-opt``, or qdot-bench's after ``qdot-bench``)."""
    err_text = io.StringIO()
    tools = {"qdot-opt": opt, "qdot-bench": bench}
    tool, args = (tools[argv[0]], argv[1:]) if argv[:1] and argv[0] in tools else (translate, argv)
    try:
        with time_limit(limit_s), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(err_text):
            tool.run([str(path), *args])
    except Slow:
        return "slow", None
    except (ToolError, SystemExit):
        return "ok", None
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - what the tool would call an internal error
        return "fail", _key(err) + "\n" + "".join(traceback.format_exception(err))
    if PASS_BUG in err_text.getvalue():
        message = err_text.getvalue()
        return "fail", "PassOutputError " + message.split("error:", 1)[-1].split("[")[0].strip() + "\n" + message
    return "ok", None


def fuzz(seed: int, cases: int | None, seconds: float | None, workdir: Path,
         limit_s: float = 20.0) -> tuple[dict[str, Failure], int, int]:
    """Run cases until ``cases`` or ``seconds`` is reached: (distinct failures, cases, slow)."""
    rng = random.Random(seed)
    inputs = seed_inputs()
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"case_{seed}.mlir"
    failures: dict[str, Failure] = {}
    done = slow = 0
    deadline = None if seconds is None else time.monotonic() + seconds
    while (cases is None or done < cases) and (deadline is None or time.monotonic() < deadline):
        seed_input = inputs[rng.randrange(len(inputs))]
        source, text = seed_input.source, seed_input.text
        for _ in range(rng.randint(1, 3)):
            text = mutate(text, rng)
        if seed_input.pipelines and rng.randrange(2):
            argv: tuple[str, ...] = ("qdot-opt", "-p", rng.choice(seed_input.pipelines))
            argv += rng.choice(((), (), ("--print-layout",), ("--print-op-generic",)))
        elif rng.randrange(6) == 0:
            argv = ("qdot-opt", "--print-layout")
        else:
            argv = TARGETS[rng.randrange(len(TARGETS))]
            argv += rng.choice(((), (), (), ("--verify-each",), ("--print-ir-after-all",)))
        # the pass-instrumentation flags and the pipeline damage come from streams of their own,
        # so that a seed draws the same inputs and tool arguments as before they existed
        argv += random.Random(f"{seed}-{done}").choice(INSTRUMENT_FLAGS)
        argv = damage_pipeline(argv, random.Random(f"{seed}-{done}-pipeline"))
        bench_rng = random.Random(f"{seed}-{done}-bench")  # and qdot-bench, one case in eight, from its own
        if bench_rng.randrange(8) == 0:
            argv = bench_argv(text, bench_rng)
        path.write_text(text, encoding="utf-8")
        path.with_suffix(".argv").write_text(" ".join(argv), encoding="utf-8")
        outcome, report = run_case(path, argv, limit_s)
        done += 1
        if outcome == "slow":
            slow += 1
            if slow <= 5:  # kept for a look: a damaged tile size can ask for a huge kernel
                (workdir / f"slow_{seed}_{slow}.mlir").write_text(f"// qdot-translate {' '.join(argv)}\n" + text,
                                                                  encoding="utf-8")
        if outcome == "fail" and report is not None:
            key = report.split("\n", 1)[0]
            failures.setdefault(key, Failure(source, argv, text, report, key))
    return failures, done, slow


def _write_failures(failures: list[Failure], out: Path, seed: int) -> None:
    for index, failure in enumerate(failures):
        repro = out / f"failure_{seed}_{index}.mlir"
        repro.write_text(f"// {failure.key}\n// from {failure.source}, qdot-translate {' '.join(failure.argv)}\n"
                         + failure.text, encoding="utf-8")
        print(f"FAIL {failure.key}: {repro} ({' '.join(failure.argv)})", flush=True)


def _worker(args: argparse.Namespace) -> int:
    seconds = None if args.cases is not None else args.seconds
    failures, done, slow = fuzz(args.seed, args.cases, seconds, args.out)
    _write_failures(list(failures.values()), args.out, args.seed)
    print(f"seed {args.seed}: {done} cases, {len(failures)} distinct failures, {slow} over the time limit",
          flush=True)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    """Run the cases in a child process, so that a case which ends the process (LLVM stops on
    some inputs rather than raising) is reported as a failure and the fuzz goes on with the
    next seed instead of ending."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to run (default: 60)")
    parser.add_argument("--cases", type=int, help="stop after this many cases instead")
    parser.add_argument("--out", type=Path, default=Path("/tmp/qdot-input-fuzz"),
                        help="where the reproducers go (default: /tmp/qdot-input-fuzz)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(args)
    import subprocess

    deadline = time.monotonic() + args.seconds
    seed, status = args.seed, 0
    while True:
        budget = ["--cases", str(args.cases)] if args.cases is not None else \
            ["--seconds", str(max(1.0, deadline - time.monotonic()))]
        child = subprocess.run([sys.executable, "-m", "tests.api.input_fuzz", "--worker", "--seed", str(seed),
                                "--out", str(args.out), *budget], cwd=ROOT, check=False)
        if child.returncode in (0, 1):
            return max(status, child.returncode)
        case = args.out / f"case_{seed}.mlir"
        argv_used = tuple(case.with_suffix(".argv").read_text(encoding="utf-8").split())
        _write_failures([Failure("?", argv_used, case.read_text(encoding="utf-8"), "",
                                 f"the process ended with status {child.returncode}")], args.out, seed)
        status = 1
        if args.cases is not None or time.monotonic() >= deadline:
            return status
        seed += 1000


if __name__ == "__main__":
    sys.exit(main())
