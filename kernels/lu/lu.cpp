#include "kernels/lu/lu.hpp"

#include <algorithm>
#include <iomanip>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string_view>

#include "backends/openmp/host_blas.hpp"
#include "common/errors.hpp"
#include "common/input_file.hpp"
#include "common/host_memory.hpp"
#include "kernels/cg/matrix_market.hpp"

namespace gpubench::lu {

namespace {

std::int64_t parse_order(const std::string& text, const std::string& spec) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("LU problem '" + spec + "': '" + text + "' is not a matrix order (N, N:dd or mtx:PATH)");
  if (n < 1) throw InputError("LU problem '" + spec + "': the order must be at least 1");
  if (n > max_order)
    throw InputError("LU problem '" + spec + "': order " + text + " is beyond " + std::to_string(max_order) +
                     " (n^2 elements must fit the kernels' 32-bit indices)");
  return n;
}

// The bytes the host holds for an order-n problem at once: the matrix, the factors read back,
// the host's own copy on openmp, and the check's copies (all in double).
void check_memory(std::int64_t n, const std::string& what) {
  const auto e = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  check_host_memory(4 * 8 * e, what);
}

// A Matrix Market array file ("%%MatrixMarket matrix array real general|symmetric"): column by
// column, as the format keeps it; a symmetric one holds the lower triangle. Every value is named
// by its line when it is not a finite number, and the file must hold exactly the values its size
// line declares.
std::vector<double> read_array(const std::string& path, std::ifstream& in, const std::string& symmetry,
                               std::int64_t& n) {
  std::string line;
  std::int64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line[0] != '%') break;
  }
  std::istringstream size(line);
  long long rows = 0, cols = 0;
  std::string more;
  if (!(size >> rows >> cols) || rows < 1 || cols < 1 || (size >> more))
    throw InputError(path + ":" + std::to_string(number) + ": expected the array's size 'ROWS COLS', found '" + line + "'");
  if (rows != cols)
    throw InputError(path + ": LU needs a square matrix; this one is " + std::to_string(rows) + " x " +
                     std::to_string(cols));
  if (rows > max_order)
    throw InputError(path + ": order " + std::to_string(rows) + " is beyond " + std::to_string(max_order));
  n = rows;
  check_memory(n, "LU problem mtx:" + path);
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
  const bool symmetric = symmetry == "symmetric";
  const std::int64_t expected = symmetric ? n * (n + 1) / 2 : n * n;
  std::int64_t i = 0, j = 0, count = 0;  // the next value's row and column
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t at = 0;
    while (true) {
      at = line.find_first_not_of(" \t", at);
      if (at == std::string::npos) break;
      const std::size_t stop = std::min(line.find_first_of(" \t", at), line.size());
      const std::string_view token(line.data() + at, stop - at);
      at = stop;
      if (count == expected)
        throw InputError(path + ":" + std::to_string(number) + ": more values than the " + std::to_string(expected) +
                         " the size line declares (" + std::to_string(n) + " x " + std::to_string(n) +
                         (symmetric ? ", symmetric: its lower triangle)" : ")"));
      std::string why;
      const auto v = cg::parse_real(token, why);
      if (!v)
        throw InputError(path + ":" + std::to_string(number) + ": value " + std::to_string(count + 1) + " of " +
                         std::to_string(expected) + " (row " + std::to_string(i + 1) + ", column " +
                         std::to_string(j + 1) + ") " + why);
      a[static_cast<std::size_t>(i + j * n)] = *v;
      if (symmetric) a[static_cast<std::size_t>(j + i * n)] = *v;
      ++count;
      if (++i == n) {
        ++j;
        i = symmetric ? j : 0;
      }
    }
  }
  if (count < expected)
    throw InputError(path + ": the file ends after " + std::to_string(count) + " of the " + std::to_string(expected) +
                     " values its size line declares (expected value " + std::to_string(count + 1) + ", row " +
                     std::to_string(i + 1) + ", column " + std::to_string(j + 1) + ", at line " +
                     std::to_string(number + 1) + ")");
  return a;
}

std::vector<double> read_file(const std::string& path, std::int64_t& n) {
  check_input_file(path, "LU problem mtx:");  // a directory, /dev/zero or another device: refused by name
  std::ifstream in(path);
  if (!in) throw InputError("LU problem mtx:" + path + ": cannot open the file");
  std::string header;
  std::getline(in, header);
  std::istringstream words(header);
  std::string banner, object, format, field, symmetry;
  words >> banner >> object >> format >> field >> symmetry;
  for (auto* w : {&object, &format, &field, &symmetry})
    std::transform(w->begin(), w->end(), w->begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (banner != "%%MatrixMarket" || object != "matrix")
    throw InputError(path + ":1: not a Matrix Market file (expected '%%MatrixMarket matrix ...')");
  if (format == "array") {
    if (field != "real" && field != "integer" && field != "double")
      throw InputError(path + ":1: LU reads real or integer matrices, not '" + field + "'");
    if (symmetry != "general" && symmetry != "symmetric")
      throw InputError(path + ":1: LU reads general or symmetric matrices, not '" + symmetry + "'");
    return read_array(path, in, symmetry, n);
  }
  in.close();
  // Coordinate: CG's reader (which names the line of a malformed entry), then dense.
  const cg::CsrMatrix m = cg::read_matrix_market(path, [](std::int64_t rows, std::int64_t) {
    const auto e = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(rows);
    return cg::SharedHostCopy{4 * 8 * e, ", counting the dense matrix LU makes of it and its factors"};
  });
  if (m.rows != m.cols)
    throw InputError(path + ": LU needs a square matrix; this one is " + std::to_string(m.rows) + " x " +
                     std::to_string(m.cols));
  n = m.rows;
  if (n > max_order) throw InputError(path + ": order " + std::to_string(n) + " is beyond " + std::to_string(max_order));
  check_memory(n, "LU problem mtx:" + path);
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (auto k = m.row_ptr[static_cast<std::size_t>(i)]; k < m.row_ptr[static_cast<std::size_t>(i) + 1]; ++k)
      a[static_cast<std::size_t>(i + m.col_idx[static_cast<std::size_t>(k)] * n)] = m.values[static_cast<std::size_t>(k)];
  return a;
}

double unit_roundoff(Precision p) { return p == Precision::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53); }

}  // namespace

Problem parse_problem(const std::string& spec) {
  Problem p;
  if (spec.rfind("mtx:", 0) == 0) {
    p.kind = Kind::file;
    p.path = spec.substr(4);
    if (p.path.empty()) throw InputError("LU problem 'mtx:': give a Matrix Market file's path after 'mtx:'");
    p.name = spec;
    return p;
  }
  const auto colon = spec.find(':');
  const std::string order = spec.substr(0, colon);
  p.n = parse_order(order, spec);
  if (colon != std::string::npos) {
    const std::string suffix = spec.substr(colon + 1);
    if (suffix != "dd")
      throw InputError("LU problem '" + spec + "': unknown form ':" + suffix +
                       "' (N: random; N:dd: diagonally dominant; mtx:PATH)");
    p.kind = Kind::dominant;
  }
  p.name = std::to_string(p.n) + (p.kind == Kind::dominant ? ":dd" : "");
  check_memory(p.n, "LU problem " + p.name);  // when the run is planned, not when the point starts
  return p;
}

std::vector<double> make_matrix(Problem& p) {
  if (p.kind == Kind::file) return read_file(p.path, p.n);
  const std::int64_t n = p.n;
  std::vector<double> a(static_cast<std::size_t>(n * n));
  std::mt19937_64 random(20261124);
  // 53 random bits scaled to [0, 1): the same values on every platform.
  for (auto& x : a) x = std::ldexp(static_cast<double>(random() >> 11), -53);
  if (p.kind == Kind::dominant)
    for (std::int64_t i = 0; i < n; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < n; ++j)
        if (j != i) sum += std::abs(a[static_cast<std::size_t>(i + j * n)]);
      a[static_cast<std::size_t>(i + i * n)] = sum + 1;
    }
  return a;
}

std::string why_pivoting_is_needed(const std::vector<double>& a, std::int64_t n) {
  std::int64_t first_row = -1, first_col = -1;
  for (std::int64_t i = 0; i < n && first_row < 0; ++i) {
    double off = 0;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) off += std::abs(a[static_cast<std::size_t>(i + j * n)]);
    if (!(std::abs(a[static_cast<std::size_t>(i + i * n)]) >= off) || a[static_cast<std::size_t>(i + i * n)] == 0)
      first_row = i;
  }
  if (first_row < 0) return {};
  for (std::int64_t j = 0; j < n && first_col < 0; ++j) {
    double off = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (i != j) off += std::abs(a[static_cast<std::size_t>(i + j * n)]);
    if (!(std::abs(a[static_cast<std::size_t>(j + j * n)]) >= off) || a[static_cast<std::size_t>(j + j * n)] == 0)
      first_col = j;
  }
  if (first_col < 0) return {};
  std::ostringstream why;
  why << "the matrix is not diagonally dominant (row " << first_row + 1 << ": |a(" << first_row + 1 << ","
      << first_row + 1 << ")| = " << std::abs(a[static_cast<std::size_t>(first_row + first_row * n)])
      << " is less than the sum of the row's other magnitudes), so an LU without pivoting may divide by a zero or "
         "tiny pivot; use a variant that pivots (blocked on opencl, cuda or openmp; vendor on cuda or openmp), or a "
         "problem N:dd";
  return why.str();
}

double flops(std::int64_t n) {
  const auto x = static_cast<double>(n);
  return 2.0 / 3.0 * x * x * x - 0.5 * x * x + 5.0 / 6.0 * x;
}

double min_bytes(std::int64_t n, Precision p) {
  const auto x = static_cast<double>(n);
  return 2.0 * x * x * static_cast<double>(bytes_of(p));
}

Verdict verify(const std::vector<double>& a, std::int64_t n, const std::vector<double>& lu,
               const std::vector<int>& ipiv, Precision p) {
  Verdict v;
  const auto at = [n](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>(i + j * n); };
  for (std::int64_t j = 0; j < n; ++j) {
    const double u = lu[at(j, j)];
    if (u == 0 || !std::isfinite(u)) {
      v.singular = j + 1;
      v.detail = "the factorisation broke down at column " + std::to_string(j + 1) + ": pivot U(" +
                 std::to_string(j + 1) + "," + std::to_string(j + 1) + ") = " + (u == 0 ? "0" : std::to_string(u)) +
                 " (the matrix is singular, or numerically so, there)";
      return v;
    }
    const int r = ipiv[static_cast<std::size_t>(j)];
    if (r < j + 1 || r > n) {
      v.detail = "ipiv(" + std::to_string(j + 1) + ") = " + std::to_string(r) + " is outside " +
                 std::to_string(j + 1) + ".." + std::to_string(n);
      return v;
    }
  }
  std::mt19937_64 random(7);
  std::vector<double> b(static_cast<std::size_t>(n));
  for (auto& x : b) x = std::ldexp(static_cast<double>(random() >> 11), -53) - 0.5;
  // x = U^-1 L^-1 P b, in long double.
  std::vector<long double> x(b.begin(), b.end());
  for (std::int64_t j = 0; j < n; ++j) std::swap(x[static_cast<std::size_t>(j)], x[static_cast<std::size_t>(ipiv[static_cast<std::size_t>(j)] - 1)]);
  // Column by column (the factors are column-major), each column's update in parallel.
  const bool parallel = n >= 512;
  for (std::int64_t j = 0; j < n; ++j) {
    const long double xj = x[static_cast<std::size_t>(j)];
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = j + 1; i < n; ++i) x[static_cast<std::size_t>(i)] -= lu[at(i, j)] * xj;
  }
  for (std::int64_t j = n - 1; j >= 0; --j) {
    x[static_cast<std::size_t>(j)] /= lu[at(j, j)];
    const long double xj = x[static_cast<std::size_t>(j)];
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = 0; i < j; ++i) x[static_cast<std::size_t>(i)] -= lu[at(i, j)] * xj;
  }
  // r = A x - b; the norms.
  std::vector<long double> r(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = -b[static_cast<std::size_t>(i)];
  std::vector<double> row_sums(static_cast<std::size_t>(n), 0.0);
  // Rows in blocks, one per thread at a time, each block's columns in order.
#pragma omp parallel for schedule(dynamic) if (parallel)
  for (std::int64_t i0 = 0; i0 < n; i0 += 256) {
    const std::int64_t i1 = std::min(n, i0 + 256);
    for (std::int64_t j = 0; j < n; ++j) {
      const long double xj = x[static_cast<std::size_t>(j)];
      for (std::int64_t i = i0; i < i1; ++i) {
        r[static_cast<std::size_t>(i)] += a[at(i, j)] * xj;
        row_sums[static_cast<std::size_t>(i)] += std::abs(a[at(i, j)]);
      }
    }
  }
  long double r_inf = 0, x_inf = 0, b_inf = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    r_inf = std::max(r_inf, std::abs(r[static_cast<std::size_t>(i)]));
    x_inf = std::max(x_inf, std::abs(x[static_cast<std::size_t>(i)]));
    b_inf = std::max(b_inf, static_cast<long double>(std::abs(b[static_cast<std::size_t>(i)])));
  }
  const double a_inf = *std::max_element(row_sums.begin(), row_sums.end());
  const long double scale = unit_roundoff(p) * (a_inf * x_inf + b_inf) * static_cast<long double>(n);
  v.residual = static_cast<double>(r_inf / scale);
  std::ostringstream detail;
  detail << "HPL's scaled residual ||Ax-b||/(eps(||A|| ||x||+||b||) n) = " << v.residual << " (eps " << unit_roundoff(p)
         << "), must be < 16";
  v.passed = std::isfinite(v.residual) && v.residual < 16;
  if (!std::isfinite(v.residual)) detail << "; the solution is not finite";
  // The 1-norm of A (the largest column sum), then LAPACK's estimate from the factors (none where
  // LAPACKE is not there).
  double a_one = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += std::abs(a[at(i, j)]);
    a_one = std::max(a_one, sum);
  }
  if (const double rcond = host_blas::gecon(static_cast<int>(n), lu.data(), a_one); rcond >= 0) {
    v.rcond = rcond;
    detail << "; LAPACK's rcond estimate " << rcond;
    if (rcond < unit_roundoff(p)) {
      std::ostringstream w;
      w << "singular to working precision: rcond " << std::setprecision(2) << rcond << " < eps "
        << static_cast<double>(unit_roundoff(p)) << " (the factors are backward stable; a solve with them may have no correct digit)";
      v.warning = w.str();
    }
  }
  v.detail = detail.str();
  return v;
}

std::int64_t reference_getrf(std::vector<double>& a, std::int64_t n, std::vector<int>& ipiv) {
  const auto at = [n](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>(i + j * n); };
  ipiv.assign(static_cast<std::size_t>(n), 0);
  std::int64_t info = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t p = j;
    for (std::int64_t i = j + 1; i < n; ++i)
      if (std::abs(a[at(i, j)]) > std::abs(a[at(p, j)])) p = i;
    ipiv[static_cast<std::size_t>(j)] = static_cast<int>(p + 1);
    if (a[at(p, j)] != 0) {
      if (p != j)
        for (std::int64_t k = 0; k < n; ++k) std::swap(a[at(j, k)], a[at(p, k)]);
      for (std::int64_t i = j + 1; i < n; ++i) a[at(i, j)] /= a[at(j, j)];
    } else if (info == 0) {
      info = j + 1;
    }
    for (std::int64_t k = j + 1; k < n; ++k)
      for (std::int64_t i = j + 1; i < n; ++i) a[at(i, k)] -= a[at(i, j)] * a[at(j, k)];
  }
  return info;
}

}  // namespace gpubench::lu
