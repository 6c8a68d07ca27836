"""Markdown for docs/agx.md, generated from the field tables and the assumption list.

The docs show the same table the encoder reads; ``tests/agx/test_docs.py``
fails when docs/agx.md and this output drift apart.

    python -m targets.agx.doctable            # print the generated blocks
    python -m targets.agx.doctable --write    # refresh them inside docs/agx.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from targets.agx.assumptions import ASSUMPTIONS
from targets.agx.fields import Field, Form, Provenance
from targets.agx.forms import FORMS, FP16_CODE, FP32_CODE, MODE_ACCUMULATE, MODE_MULTIPLY
from targets.agx.mma8 import MAX_REGISTER

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agx.md"
_BLOCK = re.compile(r"<!-- BEGIN GENERATED: (?P<name>[\w-]+) -->\n.*?<!-- END GENERATED: (?P=name) -->", re.S)


def _values(entry: Field) -> str:
    if entry.key.endswith("_reg"):
        return f"r0..r{MAX_REGISTER} as 0..{2 * MAX_REGISTER}, even"
    names = {
        "a_type": {FP16_CODE: "fp16", FP32_CODE: "fp32"},
        "b_type": {FP16_CODE: "fp16", FP32_CODE: "fp32"},
        "cd_type": {FP32_CODE: "fp32"},
        "mode": {MODE_ACCUMULATE: "accumulate", MODE_MULTIPLY: "multiply"},
    }.get(entry.key)
    assert entry.allowed is not None
    if names:
        return ", ".join(f"{value} {names[value]}" for value in entry.allowed)
    return "/".join(str(value) for value in entry.allowed)


def _seed_id(entry: Field) -> str:
    return f"{entry.seed_id} (inferred, not in the seed)" if entry.seed_id_inferred else str(entry.seed_id)


def _provenance(entry: Field) -> str:
    text = str(entry.provenance)
    return f"{text}: {entry.note}" if entry.note else text


def field_table(form: Form) -> str:
    """One row per field, opcode and unexplained run, in bit order."""
    rows: list[tuple[int, str]] = []
    opcode = form.opcode
    rows.append((opcode.bits.ranges[0][0],
                 f"| — | opcode (fixed) | {opcode.bits.spelled()} | {opcode.bits.width} | "
                 f"{opcode.value:#05x} | {Provenance.ASSUMED} | {', '.join(opcode.assumptions)} |"))
    for entry in form.fields:
        rows.append((entry.bits.ranges[0][0],
                     f"| {_seed_id(entry)} | {entry.key}: {entry.meaning} | {entry.bits.spelled()} | "
                     f"{entry.bits.width} | {_values(entry)} | {_provenance(entry)} | "
                     f"{', '.join(entry.assumptions) or '—'} |"))
    for first, last in form.unexplained_ranges():
        spelled = str(first) if first == last else f"{first}..{last}"
        rows.append((first, f"| — | unexplained | {spelled} | {last - first + 1} | 0 | "
                            f"{Provenance.ASSUMED} | {form.zero_assumption} |"))
    header = ("| seed id | field | bits | width | values | provenance | assumptions |\n"
              "|---|---|---|---|---|---|---|")
    body = "\n".join(row for _, row in sorted(rows))
    summary = (f"{form.name.upper()}: {form.length} bytes ({form.bit_count} bits), {form.wait_slots} wait slots, "
               f"{'separate A and B types' if form.separate_b_type else 'one input type for A and B'}; "
               f"{form.stated_bit_count} of {form.bit_count} bits are placed by the seed "
               f"(exactly, or as a set whose order is assumed).")
    return f"{summary}\n\n{header}\n{body}"


def assumption_table() -> str:
    lines = ["| id | assumption | why |", "|---|---|---|"]
    for entry in ASSUMPTIONS:
        lines.append(f"| {entry.id} | {entry.title} | {entry.reasoning} |")
    return "\n".join(lines)


def generated_blocks() -> dict[str, str]:
    blocks = {f"{name}-fields": field_table(form) for name, form in FORMS.items()}
    blocks["assumptions"] = assumption_table()
    return blocks


def render_into(text: str) -> str:
    """``text`` with every generated block replaced by its fresh content."""
    blocks = generated_blocks()

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in blocks:
            return match.group(0)
        return f"<!-- BEGIN GENERATED: {name} -->\n{blocks[name]}\n<!-- END GENERATED: {name} -->"

    return _BLOCK.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"refresh the generated blocks in {DOCS}")
    args = parser.parse_args(argv)
    if args.write:
        DOCS.write_text(render_into(DOCS.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    for name, block in generated_blocks().items():
        print(f"<!-- BEGIN GENERATED: {name} -->\n{block}\n<!-- END GENERATED: {name} -->\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
