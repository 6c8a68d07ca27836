"""A Triton ``tl.dot_scaled`` kernel with e2m1 on both sides (MXFP4 × MXFP4), for comparison.

The same structure as the e4m3 × e2m1 anchor kernel of ../shared/bench/mx_kernels.py
(one program per tile, grouped order, pointer loads, fp32 out) with the lhs packed
two per byte along K as well. Runs only on the GPU machine (Triton, torch).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _mxfp4_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_sam, stride_sbn, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    size = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % size
    pid_n = (pid % per_group) // size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rkb = tl.arange(0, BLOCK_K // 2)
    rks = tl.arange(0, BLOCK_K // 32)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rkb[None, :] * stride_ak
    b_ptrs = b_ptr + rkb[:, None] * stride_bk + rn[None, :] * stride_bn
    sa_ptrs = sa_ptr + rm[:, None] * stride_sam + rks[None, :]
    sb_ptrs = sb_ptr + rn[:, None] * stride_sbn + rks[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot_scaled(tl.load(a_ptrs), tl.load(sa_ptrs), "e2m1", tl.load(b_ptrs), tl.load(sb_ptrs), "e2m1", acc)
        a_ptrs += (BLOCK_K // 2) * stride_ak
        b_ptrs += (BLOCK_K // 2) * stride_bk
        sa_ptrs += BLOCK_K // 32
        sb_ptrs += BLOCK_K // 32
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


def mxfp4_matmul(a_packed: torch.Tensor, b_packed: torch.Tensor, sa: torch.Tensor, sb: torch.Tensor,
                 cfg: dict) -> torch.Tensor:
    m, n = a_packed.shape[0], b_packed.shape[1]
    k = a_packed.shape[1] * 2
    out = torch.empty((m, n), device=a_packed.device, dtype=torch.float32)
    grid = (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
    _mxfp4_kernel[grid](a_packed, b_packed, sa, sb, out, m, n, k,
                        a_packed.stride(0), a_packed.stride(1), b_packed.stride(0), b_packed.stride(1),
                        sa.stride(0), sb.stride(0), out.stride(0),
                        BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"], GROUP_M=8,
                        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return out
