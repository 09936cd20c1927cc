"""The terms a student meets, in English and 简体中文: the single source for the translations.

Each term names the Chinese word the pages use, the alternatives the course material also uses
that the pages do *not* (``rejected``: a test checks that the catalogue and the Chinese prose
never use them), and which of the course's documents use the chosen word (checked against the
documents themselves: ``grep`` over the source documents; "none" where the material keeps the
English word). The glossary page (``pages.glossary()``) shows this table.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The course's documents, as the pages name them (explainer.pages.sources.DOCUMENTS).
COURSE_NOTES = "the course notes"
WALKTHROUGH = "the gemm_tiled walk-through"
PMPP = "the PMPP chapter 5 notes"
SLIDING = "the sliding-window write-up"
LAB = "the lab report"


@dataclass(frozen=True)
class Term:
    en: str  # the English term, as the pages write it
    zh: str  # the Chinese term the pages use everywhere
    used_by: tuple[str, ...]  # the documents that use ``zh`` (empty: none; they keep the English)
    rejected: tuple[str, ...] = ()  # other Chinese words for it that the pages avoid
    note: str = ""  # why this word (English; the page shows it in both languages)
    code: str = ""  # the CUDA name, where there is one


GLOSSARY: tuple[Term, ...] = (
    Term("grid", "网格", (COURSE_NOTES, WALKTHROUGH), code="gridDim"),
    Term("block", "线程块", (COURSE_NOTES, PMPP, LAB), code="blockIdx, blockDim",
         note="“块” alone is ambiguous beside 分块 (tile)"),
    Term("thread", "线程", (COURSE_NOTES, WALKTHROUGH, PMPP, SLIDING, LAB), code="threadIdx"),
    Term("warp", "线程束", (COURSE_NOTES,), note="the gemm_tiled walk-through writes “Warp” in English"),
    Term("kernel", "核函数", (COURSE_NOTES, WALKTHROUGH, LAB), rejected=("内核",), code="__global__",
         note="内核 (the course notes, the PMPP chapter 5 notes) also means an operating-system kernel"),
    Term("tile", "分块", (COURSE_NOTES, WALKTHROUGH, PMPP, LAB), rejected=("瓦片", "子块", "平铺"),
         code="TILE, As, Bs",
         note="the most used of the material's words; 子块 (the gemm_tiled walk-through, the lab report) and "
              "平铺 (the PMPP chapter 5 notes) name the same thing"),
    Term("phase", "阶段", (COURSE_NOTES, WALKTHROUGH, PMPP, SLIDING), code="t (PMPP: ph)"),
    Term("shared memory", "共享内存", (COURSE_NOTES, WALKTHROUGH, PMPP, SLIDING, LAB), code="__shared__"),
    Term("global memory", "全局内存", (COURSE_NOTES, WALKTHROUGH, PMPP, SLIDING, LAB)),
    Term("barrier", "屏障同步", (COURSE_NOTES, PMPP), code="__syncthreads()"),
    Term("coalescing", "合并访问", (WALKTHROUGH, SLIDING, LAB), rejected=("合并访存",),
         note="合并访存 appears twice in the lab report"),
    Term("bank conflict", "存储体冲突", (), note="the material only says “bank” (the lab report)"),
    Term("occupancy", "占用率", (WALKTHROUGH, PMPP, LAB)),
    Term("arithmetic intensity", "算术强度", (LAB,), note="FLOP per byte of DRAM traffic"),
    Term("ghost thread", "越界线程", (), rejected=("幽灵线程",),
         note="a thread of the grid outside C; the material speaks of 越界 (out of bounds) accesses "
              "(the course notes, the PMPP chapter 5 notes, the lab report)"),
    Term("padding zero", "填充零", (), note="the course notes and the PMPP chapter 5 notes write “填充0”"),
    Term("register blocking", "寄存器分块", (LAB,)),
    Term("tensor core", "张量核心", (), code="mma.sync",
         note="the gemm_tiled walk-through writes “Tensor Core” in English"),
)


def term(en: str) -> Term:
    return next(t for t in GLOSSARY if t.en == en)
