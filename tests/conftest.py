"""Test session set-up: the same floating-point results on every x86-64 machine.

Many tests judge simulated bench photos whose pieces lie a fraction of a pixel from a reading's
turning point, so a last-bit difference in a blur, a resize or a sum can flip one.  NumPy, OpenCV
and OpenBLAS each pick their kernels by the CPU at run time, and AVX-512 kernels round differently
from AVX2 ones (seen: on a machine with AVX-512 nine tests failed that pass with AVX2).  The tests hold
all three to AVX2 kernels, which every x86-64 machine we run on has.  Set here, before any of them
is imported, and inherited by pytest-xdist's workers; a variable already set is left as it is.
"""

import os

os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")

def _has_avx512() -> bool:
    """Whether the CPU has AVX-512 (Linux: its flags; elsewhere assumed, as before)."""
    try:
        with open("/proc/cpuinfo") as f:
            return "avx512f" in f.read()
    except OSError:
        return True


if _has_avx512():
    # (on a CPU without it OpenCV would say on stderr that it cannot disable what is not there,
    # and every command's one line of bad-input news would come with a second)
    os.environ.setdefault("OPENCV_CPU_DISABLE", "AVX512-SKX")
os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
