"""The quantile and the millisecond format every table and chart shares."""
import math

def quantile(values, q):
    """The q-quantile of `values`, interpolated between the nearest ranks."""
    v = sorted(values)
    if len(v) == 1:
        return v[0]
    at = q * (len(v) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (at - lo)


def fmt_ms(s):
    ms = s * 1000
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 10_000 else f"{ms:.0f}"
