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
    """``spec`` without an enclosing ``builtin.module(...)`` (any other anchor is refused) and
    without the spaces around its commas, which mlir-opt's pipelines allow and xDSL's parser does
    not (options are separated by spaces inside braces, never by commas)."""
    return re.sub(r"\s*,\s*", ",", _unanchored(spec))


def _unanchored(spec: str) -> str:
    text = spec.strip()
    head = text.split("(", 1)[0] if "(" in text else ""
    if head and all(part.replace("-", "").replace("_", "").isalnum() for part in head.split(".")) \
            and text.endswith(")") and "{" not in head:
        if head != ANCHOR:
            raise PipelineError(f"qdot's passes run on the whole module: nest the pipeline in '{ANCHOR}(...)' "
                                f"or in nothing, not in '{head}(...)'")
        return _unanchored(text[len(head) + 1:-1])
    return text


def check(factories: dict[str, Callable[[], type[ModulePass]]], spec: str) -> None:
    """Refuse, by name, an unknown pass, an unknown option, an option given twice (xDSL keeps the
    last in silence), or a value of the wrong kind."""
    for match in re.finditer(r"([\w.-]+)\s*\{([^}]*)\}", spec):
        keys = [key.replace("-", "_") for key in re.findall(r"([\w-]+)\s*=", match.group(2))]
        twice = next((key for key in keys if keys.count(key) > 1), None)
        if twice is not None:
            raise PipelineError(f"{match.group(1)} is given option '{twice.replace('_', '-')}' twice")
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
