"""A pass pipeline as the tools take it, checked against the passes before anything runs.

xDSL parses ``-p 'pass{option=value}'`` and reports what it cannot use in its own terms
(``Incompatible types: given ('abc',), expected <class 'int'>``, option names with
underscores). A user wrote option names with dashes and needs to hear which pass and option
was wrong and what it takes; an MLIR user also writes pipelines nested in their anchor,
``builtin.module(a,b)``, which qdot's module passes take as they are.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

ANCHOR = "builtin.module"
"""The one anchor a qdot pipeline may be nested in: every pass runs on the whole module."""


class PipelineError(ValueError):
    """The pipeline text names a pass or option that does not exist, or gives an option a value
    of the wrong kind."""


def normalized(spec: str) -> str:
    """``spec`` without an enclosing ``builtin.module(...)`` (any other anchor is refused), without
    the spaces around its commas, which mlir-opt's pipelines allow and xDSL's parser does not
    (options are separated by spaces inside braces, never by commas), and with the quotes around
    an option's number or boolean dropped: MLIR reads ``num-stages="2"`` as ``num-stages=2`` (quotes
    only delimit a value), where xDSL would take a quoted value for a word."""
    return normalized_with_origins(spec)[0]


_QUOTED_SCALAR = re.compile(r'(?<==)"(-?\d+(?:\.\d+)?|true|false)"(?=[\s},]|$)')


def normalized_with_origins(spec: str) -> tuple[str, list[int]]:
    """``normalized(spec)`` and, for each of its characters and for its end, the index in ``spec`` it
    comes from: a syntax error xDSL finds in the normalized text is reported at the place the user
    typed (``syntax_error``), not at a column of text they never wrote."""
    start, end = _unanchored(spec, 0, len(spec))
    origins = list(range(start, end))
    dropped: set[int] = set()
    text = spec[start:end]
    for match in re.finditer(r"\s*,\s*", text):
        dropped.update(i for i in range(match.start(), match.end()) if text[i] != ",")
    for match in re.finditer(r"\{\s+|\s+\}", text):  # spaces just inside braces, as between options
        dropped.update(i for i in range(match.start(), match.end()) if text[i].isspace())
    for match in _QUOTED_SCALAR.finditer(text):
        dropped.update((match.start(), match.end() - 1))
    kept = [i for i in range(len(text)) if i not in dropped]
    return "".join(text[i] for i in kept), [origins[i] for i in kept] + [end]


def _unanchored(spec: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of ``spec[start:end]`` without its surrounding spaces and without the anchor it is
    nested in, if any: the one its ``builtin.module(`` opens and the ``)`` that closes that ``(``."""
    while start < end and spec[start].isspace():
        start += 1
    while end > start and spec[end - 1].isspace():
        end -= 1
    text = spec[start:end]
    head = text.split("(", 1)[0] if "(" in text else ""
    if not (head and all(part.replace("-", "").replace("_", "").isalnum() for part in head.split("."))
            and "{" not in head):
        return start, end
    opening = start + len(head)
    closing = _closing(spec, opening, end)
    if closing is None:
        if not text.endswith(")") and head != ANCHOR:
            return start, end  # not an anchor after all (a pass named like one): xDSL's error
        raise PipelineError(f"'{head}(' at column {opening + 1} of the pipeline is not closed:"
                            f"{_pointed(spec, opening)}")
    if closing != end - 1:
        if not text.endswith(")") and head != ANCHOR:
            return start, end
        stray = next(i for i in range(closing + 1, end) if not spec[i].isspace())
        raise PipelineError(f"unexpected '{spec[stray]}' at column {stray + 1} of the pipeline, after the ')' that "
                            f"closes '{head}(':{_pointed(spec, stray)}")
    if head != ANCHOR:
        raise PipelineError(f"qdot's passes run on the whole module: nest the pipeline in '{ANCHOR}(...)' "
                            f"or in nothing, not in '{head}(...)'")
    return _unanchored(spec, opening + 1, closing)


def _closing(spec: str, opening: int, end: int) -> int | None:
    """The index of the ``)`` that closes the ``(`` at ``opening`` (parentheses inside quoted values
    do not count), or None."""
    depth = 0
    quoted = False
    for index in range(opening, end):
        char = spec[index]
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    return None


def _pointed(spec: str, index: int) -> str:
    """``spec`` on a line of its own with a caret under ``spec[index]``, as the parse errors show it."""
    return f"\n  {spec}\n  {' ' * index}^"


def syntax_error(spec: str, message: str) -> str:
    """xDSL's report of a syntax error in the normalized ``spec`` (``pass-pipeline:1:COL``, the text, a
    caret and the reason), told of the text the user gave: its column and caret there."""
    match = re.match(r"(?s)(.*?pass-pipeline:1:)(\d+)\n[^\n]*\n( *)(\^+)\n *(.*)", message)
    if match is None:
        return message
    origins = normalized_with_origins(spec)[1]
    column = int(match.group(2)) - 1
    where = origins[min(column, len(origins) - 1)]
    width = max(1, min(len(match.group(4)), len(spec) - where))
    reason = match.group(5).strip()
    return f"{match.group(1)}{where + 1}\n{spec}\n{' ' * where}{'^' * width}\n{' ' * where}{reason}"


def check(factories: dict[str, Callable[[], type[ModulePass]]], spec: str) -> None:
    """Refuse, by name, an unknown pass, an unknown option, an option given twice (xDSL keeps the
    last in silence), or a value of the wrong kind."""
    for match in re.finditer(r"([\w.-]+)\s*\{((?:[^}\"]|\"[^\"]*\")*)\}", spec):
        # the options with each quoted value blanked out: what a value says is no option name
        body = re.sub(r'"[^"]*"', lambda quoted: '"' + "x" * (len(quoted.group()) - 2) + '"', match.group(2))
        keys = [key.replace("-", "_") for key in re.findall(r"([\w-]+)\s*=", body)]
        twice = next((key for key in keys if keys.count(key) > 1), None)
        if twice is not None:
            raise PipelineError(f"{match.group(1)} is given option '{twice.replace('_', '-')}' twice")
        inner = re.search(r"(?<![\w-])([\w-]+)=([^\s\"=]*=[^\s\"]*)", body)
        if inner is not None:
            raise PipelineError(f"{match.group(1)} option '{inner.group(1)}' has an '=' in its value "
                                f"'{inner.group(2)}': quote a value that holds one, {inner.group(1)}=\"...\"")
        empty = re.search(r"([\w-]+)\s*=\s*(?=$|[\w-]+\s*=)", body)  # xDSL: "Unknown argument value"
        if empty is not None:
            raise PipelineError(f"{match.group(1)} option '{empty.group(1)}' has nothing after its '=': write "
                                f"{empty.group(1)}=VALUE")
    if spec.endswith(","):  # xDSL reads no pass after it; a pass left out, as ',cse' is one (which xDSL refuses)
        raise PipelineError(f"the pipeline '{spec}' ends with ',': a pass must follow it, or leave the ',' out")
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError:
        return  # malformed syntax: xDSL's error points at the character
    for arg_spec in specs:
        if arg_spec.name not in factories:
            close = difflib.get_close_matches(arg_spec.name, list(factories), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; the passes are {', '.join(factories)}"
            raise PipelineError(f"unknown pass '{arg_spec.name}'{hint}")
        cls = factories[arg_spec.name]()
        fields = {f.name: f for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
        for option, values in arg_spec.parameters.items():
            field = fields.get(option.replace("-", "_"))
            if field is None:
                known = ", ".join(name.replace("_", "-") for name in fields) or "none"
                raise PipelineError(f"{arg_spec.name} has no option '{option}'; its options are: {known}")
            _check_value(arg_spec.name, option, field, values)


def pipeline_archs(factories: dict[str, Callable[[], type[ModulePass]]], spec: str) -> set[str]:
    """The arch each pass of ``spec`` that takes one runs for: its ``arch=``, or its default (a
    pass left without one runs for sm_90 even beside passes told sm_120a). Empty where the text
    does not parse (``check`` reports that)."""
    try:
        specs = list(parse_pipeline(normalized(spec)))
    except (ArgSpecParseError, PipelineError):
        return set()
    archs: set[str] = set()
    for arg_spec in specs:
        if arg_spec.name not in factories:
            continue
        cls = factories[arg_spec.name]()
        fields = {f.name: f for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
        if "arch" not in fields:
            continue
        given = [value for name, values in arg_spec.parameters.items() if name.replace("-", "_") == "arch"
                 for value in values]
        archs.add(_spelt(given[0]) if given else str(fields["arch"].default))
    return archs


def pipeline_arch(factories: dict[str, Callable[[], type[ModulePass]]], spec: str, arch: str | None,
                  given_as: str = "arch") -> str | None:
    """The one arch the PTX of ``spec`` is emitted for: ``arch`` (the tool's --arch or compile's
    ``arch=``) or, without it, the arch the pipeline's passes name; None when neither says. A
    pipeline whose passes run for different archs, or for another than ``arch``, is refused: its
    kernel would be laid out for one GPU and checked or emitted for another."""
    archs = pipeline_archs(factories, spec)
    if len(archs) > 1:
        raise PipelineError(f"the pipeline's passes run for different archs ({', '.join(sorted(archs))}): give "
                            "every pass that takes an arch the same one (a pass without arch= runs for sm_90)")
    if arch is not None and archs and archs != {arch}:
        label = f"{given_as}{arch}" if given_as.endswith("=") else f"{given_as} {arch}"
        raise PipelineError(f"{label} and the pipeline's arch={next(iter(archs))} disagree: the PTX is emitted "
                            f"for {label}")
    return arch or next(iter(archs), None)


_KINDS = {"int": (int, "an integer"), "bool": (bool, "true or false"), "str": (str, "a word"),
          "float": (float, "a number")}


def _check_value(pass_name: str, option: str, field: dataclasses.Field, values: tuple) -> None:
    annotation = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    kind = _KINDS.get(annotation)
    if kind is None:
        return  # a list or optional option: xDSL's own check
    expected, words = kind
    if len(values) != 1:
        raise PipelineError(f"{pass_name} option '{option}' takes one value ({words}), got "
                            f"{len(values)}: write {option}=VALUE")
    value = values[0]
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise PipelineError(f"{pass_name} option '{option}' takes {words}, got '{_spelt(value)}'")


def _spelt(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
