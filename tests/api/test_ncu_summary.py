"""``bench.ncu_summary`` on a small source-page CSV of the shape ``ncu --page source --csv`` writes."""

from __future__ import annotations

from pathlib import Path

from bench.ncu_summary import summary

HEADER = ("Address", "Source", "Warp Stall Sampling (All Samples)", "L1 Wavefronts Shared Excessive",
          "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global Excessive",
          "L2 Theoretical Sectors Global", "stall_dispatch", "stall_short_sb", "stall_selected",
          "stall_dispatch (Not Issued)")
ROWS = (
    ("0x10", "      FFMA R1, R2, R3, R1", "6", "0", "0", "0", "0", "0", "3", "0", "3", "3"),
    ("0x20", "      IMMA.16832.S8.U8 R4, R8.ROW, R12.COL, R4", "2", "0", "0", "0", "0", "0", "1", "0", "1", "1"),
    ("0x30", "  @P0 LDS.U16 R5, [R9+0x2]", "2", "7", "8", "1", "0", "0", "0", "2", "0", "0"),
    ("0x40", "      LDG.E R6, desc[UR4][R10.64]", "0", "0", "0", "0", "1", "4", "0", "0", "0", "0"),
)


def _csv(path: Path) -> Path:
    quoted = lambda row: ",".join(f'"{cell}"' for cell in row)  # noqa: E731
    path.write_text("\n".join(['==PROF== Connected to process 1', quoted(("Kernel Name", "mmq_x", "")),
                               quoted(HEADER), *(quoted(r) for r in ROWS)]) + "\n")
    return path


def test_summary_counts_wavefronts_sectors_and_stalls(tmp_path: Path) -> None:
    text = summary(str(_csv(tmp_path / "k.csv")))
    lines = text.splitlines()
    assert lines[0] == "kernel mmq_x (4 SASS instructions)"
    assert lines[1] == "shared wavefronts 8, excess 7 (88 %)"
    assert "  LDS.U16" in text and "global sectors 4, beyond the ideal 1 (25 %)" in text
    # 10 samples: dispatch 4 (FFMA 3, IMMA 1), selected 4, short scoreboard 2 (the predicated LDS)
    assert "stall samples by reason: dispatch 40 %, selected 40 %, short_sb 20 %" in text
    assert "stall samples by opcode: FFMA 60 %, IMMA.16832.S8.U8 20 %, LDS.U16 20 %" in text
    assert "  dispatch       FFMA 75 %, IMMA 25 %" in lines
    assert "  short_sb       LDS 100 %" in lines
