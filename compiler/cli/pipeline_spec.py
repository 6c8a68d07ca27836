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
from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

ANCHOR = "builtin.module"
"""The one anchor a qdot pipeline may be nested in: every pass runs on the whole module."""


class PipelineError(ValueError):
    """The pipeline text names a pass or option that does not exist, or gives an option a value
    of the wrong kind."""


def unanchored(spec: str) -> str:
    """``spec`` without an enclosing ``builtin.module(...)``; any other anchor is refused."""
    text = spec.strip()
    head = text.split("(", 1)[0] if "(" in text else ""
    if head and all(part.replace("-", "").replace("_", "").isalnum() for part in head.split(".")) \
            and text.endswith(")") and "{" not in head:
        if head != ANCHOR:
            raise PipelineError(f"qdot's passes run on the whole module: nest the pipeline in '{ANCHOR}(...)' "
                                f"or in nothing, not in '{head}(...)'")
        return unanchored(text[len(head) + 1:-1])
    return text


def check(factories: dict[str, Callable[[], type[ModulePass]]], spec: str) -> None:
    """Refuse, by name, an unknown pass, an unknown option, or a value of the wrong kind."""
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


def option_values(spec: str, option: str) -> set[str]:
    """Every value the passes of ``spec`` are given for ``option`` (dashes or underscores)."""
    try:
        specs = list(parse_pipeline(unanchored(spec)))
    except (ArgSpecParseError, PipelineError):
        return set()
    wanted = option.replace("-", "_")
    return {_spelt(value) for arg_spec in specs for name, values in arg_spec.parameters.items()
            if name.replace("-", "_") == wanted for value in values}


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
