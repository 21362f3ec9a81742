#include "kernels/gemm/gemm.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string_view>

#include "common/errors.hpp"

namespace gpubench::gemm {

namespace {

constexpr std::int64_t int32_limit = 2147483647;

std::int64_t parse_size(const std::string& spec, std::string_view text) {
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw InputError("GEMM problem '" + spec + "': '" + std::string(text) +
                     "' is not a size (valid: N, MxNxK, either with :NN or :TN)");
  if (v < 1) throw InputError("GEMM problem '" + spec + "': sizes must be at least 1, got " + std::string(text));
  if (v > int32_limit) throw InputError("GEMM problem '" + spec + "': " + std::string(text) + " is beyond 2^31 - 1");
  return v;
}

// Unit roundoff of a precision, and of the long double the host references sum in.
double unit_roundoff(Precision p) { return p == Precision::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53); }
double host_roundoff() { return static_cast<double>(std::numeric_limits<long double>::epsilon()) / 2; }
// gamma(n) = n u / (1 - n u): the bound on the relative error of n roundings (Higham, 3.1).
double gamma(double n, double u) { return n * u < 0.5 ? n * u / (1 - n * u) : INFINITY; }
double smallest_normal(Precision p) {
  return p == Precision::f32 ? static_cast<double>(std::numeric_limits<float>::min()) : std::numeric_limits<double>::min();
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

Shape parse_shape(const std::string& spec) {
  std::string sizes = spec;
  Shape s;
  if (const auto colon = spec.find(':'); colon != std::string::npos) {
    std::string layout = spec.substr(colon + 1);
    for (auto& c : layout) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (layout != "NN" && layout != "TN")
      throw InputError("GEMM problem '" + spec + "': layout '" + spec.substr(colon + 1) +
                       "' is not NN or TN (A transposed)");
    s.transpose_a = layout == "TN";
    sizes = spec.substr(0, colon);
  }
  std::vector<std::string_view> parts;
  std::string_view rest = sizes;
  for (std::size_t x; (x = rest.find('x')) != std::string_view::npos; rest.remove_prefix(x + 1))
    parts.push_back(rest.substr(0, x));
  parts.push_back(rest);
  if (parts.size() == 1) {
    s.m = s.n = s.k = parse_size(spec, parts[0]);
  } else if (parts.size() == 3) {
    s.m = parse_size(spec, parts[0]);
    s.n = parse_size(spec, parts[1]);
    s.k = parse_size(spec, parts[2]);
  } else {
    throw InputError("GEMM problem '" + spec + "' is not N or MxNxK (with :NN or :TN)");
  }
  for (const auto& [what, elements] : {std::pair<const char*, std::int64_t>{"A", s.m * s.k}, {"B", s.k * s.n},
                                       {"C", s.m * s.n}})
    if (elements > int32_limit)
      throw InputError("GEMM problem '" + spec + "': " + what + " would have " + std::to_string(elements) +
                       " elements, beyond the 2^31 - 1 the kernels index");
  s.name = std::string(sizes) + (s.transpose_a ? ":TN" : "");
  return s;
}

double flops(const Shape& s) { return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k); }

double min_bytes(const Shape& s, Precision p) {
  return static_cast<double>(bytes_of(p)) *
         static_cast<double>(s.a_elements() + s.b_elements() + 2 * s.c_elements());
}

std::vector<double> make_input(std::int64_t elements, std::uint64_t seed, bool exact) {
  std::mt19937_64 random(seed);
  std::vector<double> v(static_cast<std::size_t>(elements));
  if (exact) {
    std::uniform_int_distribution<int> small(-2, 2);
    for (auto& x : v) x = small(random);
  } else {
    // 53 random bits scaled to [-1, 1): the same values on every platform (the standard
    // distributions are not specified bit for bit).
    for (auto& x : v) x = std::ldexp(static_cast<double>(random() >> 11), -52) - 1.0;
  }
  return v;
}

void reference_gemm(const Shape& s, double alpha, const std::vector<double>& a, const std::vector<double>& b,
                    double beta, std::vector<double>& c) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < s.m; ++i) {
    std::vector<long double> row(static_cast<std::size_t>(s.n), 0.0L);
    for (std::int64_t l = 0; l < s.k; ++l) {
      const long double ail = a[static_cast<std::size_t>(s.a_index(i, l))];
      const double* bl = &b[static_cast<std::size_t>(l * s.n)];
      for (std::int64_t j = 0; j < s.n; ++j) row[static_cast<std::size_t>(j)] += ail * bl[j];
    }
    double* ci = &c[static_cast<std::size_t>(i * s.n)];
    for (std::int64_t j = 0; j < s.n; ++j)
      ci[j] = static_cast<double>(alpha * row[static_cast<std::size_t>(j)] + static_cast<long double>(beta) * ci[j]);
  }
}

Verdict check_against_reference(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                                const std::vector<double>& b, double beta, const std::vector<double>& c0,
                                const std::vector<double>& c) {
  std::vector<double> ref = c0, magnitude = c0;
  reference_gemm(s, alpha, a, b, beta, ref);
  // |alpha| |A||B| + |beta| |C0|, the scale of each element's rounding error.
  std::vector<double> abs_a(a.size()), abs_b(b.size());
  std::transform(a.begin(), a.end(), abs_a.begin(), [](double x) { return std::abs(x); });
  std::transform(b.begin(), b.end(), abs_b.begin(), [](double x) { return std::abs(x); });
  for (auto& x : magnitude) x = std::abs(x);
  reference_gemm(s, std::abs(alpha), abs_a, abs_b, std::abs(beta), magnitude);
  const double g = gamma(static_cast<double>(s.k + 2), unit_roundoff(p)) +
                   gamma(static_cast<double>(s.k + 4), host_roundoff());
  const double tiny = static_cast<double>(s.k + 2) * smallest_normal(p);
  double worst = 0;
  std::int64_t worst_at = 0;
  for (std::int64_t e = 0; e < s.c_elements(); ++e) {
    const auto i = static_cast<std::size_t>(e);
    const double bound = g * magnitude[i] + tiny;
    const double error = std::abs(c[i] - ref[i]);
    if (!(error <= bound))  // NaN fails too
      return {false, "C(" + std::to_string(e / s.n) + ", " + std::to_string(e % s.n) + ") = " + number(c[i]) +
                         ", the reference " + number(ref[i]) + ": off by " + number(error) +
                         ", beyond the rounding bound " + number(bound)};
    const double ratio = bound > 0 ? error / bound : 0;
    if (ratio > worst) worst = ratio, worst_at = e;
  }
  return {true, "every element within its rounding bound of the host reference (worst: " + number(worst) +
                    " of it, at C(" + std::to_string(worst_at / s.n) + ", " + std::to_string(worst_at % s.n) + "))"};
}

Verdict freivalds(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                  const std::vector<double>& b, double beta, const std::vector<double>& c0,
                  const std::vector<double>& c, int trials, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  const double g = gamma(static_cast<double>(s.k + 2), unit_roundoff(p)) +
                   gamma(static_cast<double>(s.n + s.k + 4), host_roundoff());
  const double tiny = static_cast<double>(s.k + 2) * smallest_normal(p) * static_cast<double>(s.n) * 1.5;
  double worst = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<long double> x(n), bx(k, 0.0L), abs_bx(k, 0.0L);
    for (auto& v : x) {
      const long double magnitude = 0.5L + static_cast<long double>(std::ldexp(static_cast<double>(random() >> 11), -53));
      v = (random() & 1) ? magnitude : -magnitude;
    }
    // B x and |B| |x|.
#pragma omp parallel for schedule(static)
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t j = 0; j < n; ++j) {
        bx[l] += b[l * n + j] * x[j];
        abs_bx[l] += std::abs(b[l * n + j]) * std::abs(x[j]);
      }
    // Each row's error and bound in parallel; the first row beyond its bound is reported.
    std::vector<double> errors(m), bounds(m);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < m; ++i) {
      long double cx = 0, c0x = 0, abs_cx = 0, abs_c0x = 0, abx = 0, abs_abx = 0;
      for (std::size_t j = 0; j < n; ++j) {
        cx += c[i * n + j] * x[j];
        abs_cx += std::abs(c[i * n + j]) * std::abs(x[j]);
        c0x += c0[i * n + j] * x[j];
        abs_c0x += std::abs(c0[i * n + j]) * std::abs(x[j]);
      }
      for (std::size_t l = 0; l < k; ++l) {
        const double ail = a[static_cast<std::size_t>(s.a_index(static_cast<std::int64_t>(i), static_cast<std::int64_t>(l)))];
        abx += ail * bx[l];
        abs_abx += std::abs(ail) * abs_bx[l];
      }
      const long double expected = alpha * abx + static_cast<long double>(beta) * c0x;
      const double error = static_cast<double>(std::abs(cx - expected));
      const double bound = g * static_cast<double>(std::abs(alpha) * abs_abx + std::abs(beta) * abs_c0x) +
                           gamma(static_cast<double>(s.n + 2), host_roundoff()) * static_cast<double>(abs_cx) + tiny;
      errors[i] = error;
      bounds[i] = bound;
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (!(errors[i] <= bounds[i]))  // NaN fails too
        return {false, "Freivalds' check, vector " + std::to_string(t + 1) + ": row " + std::to_string(i) +
                           " of C x is off by " + number(errors[i]) + " from alpha A (B x) + beta C0 x, beyond the "
                           "rounding bound " + number(bounds[i])};
      if (bounds[i] > 0) worst = std::max(worst, errors[i] / bounds[i]);
    }
  }
  return {true, "Freivalds' check with " + std::to_string(trials) + " random vectors: every row within its rounding "
                "bound (worst: " + number(worst) + " of it)"};
}

Verdict check_sampled_elements(const Shape& s, Precision p, double alpha, const std::vector<double>& a,
                               const std::vector<double>& b, double beta, const std::vector<double>& c0,
                               const std::vector<double>& c, std::int64_t random, std::uint64_t seed) {
  std::vector<std::int64_t> rows, columns;
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{1}, s.m - 2, s.m - 1})
    if (i >= 0 && i < s.m) rows.push_back(i);
  for (std::int64_t j : {std::int64_t{0}, std::int64_t{1}, s.n - 2, s.n - 1})
    if (j >= 0 && j < s.n) columns.push_back(j);
  std::vector<std::pair<std::int64_t, std::int64_t>> picked;
  for (std::int64_t i : rows)
    for (std::int64_t j = 0; j < s.n; ++j) picked.emplace_back(i, j);
  for (std::int64_t j : columns)
    for (std::int64_t i = 0; i < s.m; ++i) picked.emplace_back(i, j);
  std::mt19937_64 rng(seed);
  for (std::int64_t r = 0; r < random; ++r)
    picked.emplace_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.m)),
                        static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.n)));

  // Each picked element's sum over l of A(i, l) B(l, j), and of its magnitudes, in the order
  // that keeps memory contiguous: a whole row of C streams B by rows; a whole column reads a
  // copy of B's column; the random ones read what they need.
  std::vector<long double> sums(picked.size()), magnitudes(picked.size());
  const auto n = static_cast<std::size_t>(s.n), m = static_cast<std::size_t>(s.m);
  std::size_t q0 = 0;
  for (std::int64_t i : rows) {
    constexpr std::size_t block = 256;
#pragma omp parallel for schedule(static)
    for (std::size_t j0 = 0; j0 < n; j0 += block) {
      const std::size_t j1 = std::min(n, j0 + block);
      for (std::int64_t l = 0; l < s.k; ++l) {
        const long double ail = a[static_cast<std::size_t>(s.a_index(i, l))];
        const double* bl = &b[static_cast<std::size_t>(l) * n];
        for (std::size_t j = j0; j < j1; ++j) {
          sums[q0 + j] += ail * bl[j];
          magnitudes[q0 + j] += std::abs(ail * bl[j]);
        }
      }
    }
    q0 += n;
  }
  for (std::int64_t j : columns) {
    std::vector<double> column(static_cast<std::size_t>(s.k));
    for (std::int64_t l = 0; l < s.k; ++l) column[static_cast<std::size_t>(l)] = b[static_cast<std::size_t>(l) * n + static_cast<std::size_t>(j)];
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < m; ++i) {
      long double sum = 0, magnitude = 0;
      for (std::int64_t l = 0; l < s.k; ++l) {
        const long double term =
            static_cast<long double>(a[static_cast<std::size_t>(s.a_index(static_cast<std::int64_t>(i), l))]) *
            column[static_cast<std::size_t>(l)];
        sum += term;
        magnitude += std::abs(term);
      }
      sums[q0 + i] = sum;
      magnitudes[q0 + i] = magnitude;
    }
    q0 += m;
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t q = q0; q < picked.size(); ++q) {
    const auto [i, j] = picked[q];
    long double sum = 0, magnitude = 0;
    for (std::int64_t l = 0; l < s.k; ++l) {
      const long double term = static_cast<long double>(a[static_cast<std::size_t>(s.a_index(i, l))]) *
                               b[static_cast<std::size_t>(l * s.n + j)];
      sum += term;
      magnitude += std::abs(term);
    }
    sums[q] = sum;
    magnitudes[q] = magnitude;
  }

  const double g = gamma(static_cast<double>(s.k + 2), unit_roundoff(p)) +
                   gamma(static_cast<double>(s.k + 4), host_roundoff());
  const double tiny = static_cast<double>(s.k + 2) * smallest_normal(p);
  std::vector<double> errors(picked.size()), bounds(picked.size()), expecteds(picked.size());
#pragma omp parallel for schedule(static)
  for (std::size_t q = 0; q < picked.size(); ++q) {
    const auto [i, j] = picked[q];
    const auto e = static_cast<std::size_t>(i * s.n + j);
    const long double expected = alpha * sums[q] + static_cast<long double>(beta) * c0[e];
    bounds[q] = g * static_cast<double>(std::abs(alpha) * magnitudes[q] + std::abs(beta) * std::abs(c0[e])) + tiny;
    errors[q] = static_cast<double>(std::abs(c[e] - expected));
    expecteds[q] = static_cast<double>(expected);
  }
  double worst = 0;
  for (std::size_t q = 0; q < picked.size(); ++q) {
    const auto [i, j] = picked[q];
    if (!(errors[q] <= bounds[q]))  // NaN fails too
      return {false, "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
                         number(c[static_cast<std::size_t>(i * s.n + j)]) + ", recomputed " + number(expecteds[q]) +
                         ": off by " + number(errors[q]) + ", beyond the rounding bound " + number(bounds[q])};
    if (bounds[q] > 0) worst = std::max(worst, errors[q] / bounds[q]);
  }
  return {true, std::to_string(picked.size()) + " elements (the first and last two rows and columns, and random "
                "ones) within their rounding bounds (worst: " + number(worst) + " of it)"};
}

Verdict verify(const Shape& s, Precision p, double alpha, const std::vector<double>& a, const std::vector<double>& b,
               double beta, const std::vector<double>& c0, const std::vector<double>& c, double reference_limit) {
  if (static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= reference_limit)
    return check_against_reference(s, p, alpha, a, b, beta, c0, c);
  Verdict f = freivalds(s, p, alpha, a, b, beta, c0, c);
  if (!f.passed) return f;
  Verdict e = check_sampled_elements(s, p, alpha, a, b, beta, c0, c);
  if (!e.passed) return e;
  return {true, f.detail + "; " + e.detail};
}

}  // namespace gpubench::gemm
