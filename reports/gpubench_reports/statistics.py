"""The statistics of repetitions: Student's t confidence intervals, quantiles."""
import math
import statistics


# Student's t, 0.975 quantile, for 1..30 degrees of freedom (used where scipy is missing).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t975(df):
    try:
        from scipy.stats import t
        return float(t.ppf(0.975, df))
    except ImportError:
        return T975[df - 1] if df <= len(T975) else 1.960


def confidence(times):
    """(mean, half-width of the 95% interval, relative error = half-width / mean); None below 2 samples."""
    if len(times) < 2:
        return None
    mean = statistics.fmean(times)
    half = t975(len(times) - 1) * statistics.stdev(times) / math.sqrt(len(times))
    return mean, half, half / mean if mean else float("nan")


def quantile(sorted_values, q):
    """Linear-interpolated quantile of a sorted list."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    x = q * (len(sorted_values) - 1)
    i = int(x)
    return sorted_values[i] + (sorted_values[min(i + 1, len(sorted_values) - 1)] - sorted_values[i]) * (x - i)
