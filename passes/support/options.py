"""The check of a pass's string options against the values it declares (``OPTION_VALUES``).

xDSL parses ``-p 'pass{option=value}'`` into the pass's dataclass fields without knowing which
values a string option may take; a pass names them once, in ``OPTION_VALUES``, which the tools'
``--help`` lists (compiler/cli/pass_help.py) and this refuses anything else against — so the
list in the help and the check cannot drift apart.
"""

from __future__ import annotations

from xdsl.passes import ModulePass

from compiler.diagnostics import QdotError


def check_option_values(pass_: ModulePass) -> None:
    """``QdotError`` naming the first option of ``pass_`` whose value is not one of its declared
    ones (``OPTION_VALUES``) or outside its declared bounds (``OPTION_MINIMUM``, ``OPTION_MAXIMUM``). The tools
    call it when they build a pipeline, so a bad value is a command-line error there; a pass
    calls it when it runs, for pipelines built from Python."""
    for option, allowed in getattr(pass_, "OPTION_VALUES", {}).items():
        value = getattr(pass_, option)
        if value not in allowed:
            raise QdotError(None, f"{pass_.name}: unknown {option.replace('_', '-')} '{value}'; expected one of "
                                  f"{', '.join(allowed)}")
    for option, least in getattr(pass_, "OPTION_MINIMUM", {}).items():
        value = getattr(pass_, option)
        if value < least:
            raise QdotError(None, f"{pass_.name}: {option.replace('_', '-')} must be at least {least}, got {value}")
    for option, most in getattr(pass_, "OPTION_MAXIMUM", {}).items():
        value = getattr(pass_, option)
        if value > most:
            raise QdotError(None, f"{pass_.name}: {option.replace('_', '-')} must be at most {most}, got {value}")
