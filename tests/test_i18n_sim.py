"""A student's broken kernel gets the simulator's words in the page's language: 简体中文 when the
language is zh-CN, English otherwise (the same problems, kinds, lines and threads in both)."""

from __future__ import annotations

import re

import pytest

from explainer import i18n
from explainer.sim import SimError, check_kernel

HAN = re.compile(r"[\u4e00-\u9fff]")
SIG = "__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n"
#: No guard: threads of the edge blocks read A and B past their ends and store outside C.
UNGUARDED = SIG + """{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}
"""
#: Every thread stores the same element of C: a write-write race and a wrong result.
RACY = SIG + """{
    C[0] = A[0];
}
"""
UNDECLARED = SIG + "{\n    C[0] = nope;\n}\n"


def _report(src, lang):
    with i18n.using(lang):
        return check_kernel(src, [(5, 7, 3, 4)], tile=4)


@pytest.mark.parametrize("src", [UNGUARDED, RACY], ids=["out_of_bounds", "race"])
def test_a_broken_kernels_problems_are_said_in_the_pages_language(src):
    en, zh = _report(src, "en"), _report(src, "zh-CN")
    assert en.problems and not en.passed
    assert [(p.kind, p.line, p.threads) for p in en.problems] == [(p.kind, p.line, p.threads) for p in zh.problems]
    for line in en.lines():
        assert not HAN.search(line), line
    for line in zh.lines():
        assert HAN.search(line), line
        assert "\n" not in line
    # the numbers and the code in them are the same in both languages
    for a, b in zip(en.problems, zh.problems):
        assert sorted(re.findall(r"\d+", a.message)) == sorted(re.findall(r"\d+", b.message)), (a.message, b.message)


def test_a_kernel_that_does_not_compile_says_why_in_the_pages_language():
    with i18n.using("en"), pytest.raises(SimError) as en:
        check_kernel(UNDECLARED, tile=4)
    with i18n.using("zh-CN"), pytest.raises(SimError) as zh:
        check_kernel(UNDECLARED, tile=4)
    assert str(en.value) == "line 3: 'nope' is not declared"
    assert HAN.search(str(zh.value)) and "nope" in str(zh.value) and "3" in str(zh.value)
    assert not HAN.search(str(en.value))
