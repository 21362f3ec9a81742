// CG problems: Laplacian generators, the CG suitability check and the command-line problem names
// (the Matrix Market reader is matrix_market.cpp).
#include "kernels/cg/problems.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "kernels/cg/matrix_market.hpp"
#include "kernels/cg/npb.hpp"

namespace gpubench::cg {

namespace {

// Shortest text that reads back as the same double, so that messages show exact values.
std::string format_value(double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

// ---------------------------------------------------------------------------------------------
// Laplacians

// n^dims, or a value above int32_limit as soon as it is certainly above it (never overflows:
// each factor is below 2^31 and the running product stays below 2^31 before multiplying).
std::int64_t capped_power(int n, int dims) {
  std::int64_t result = 1;
  for (int d = 0; d < dims; ++d) {
    result *= n;
    if (result > int32_limit) return result;
  }
  return result;
}

// The (2*dims+1)-point Laplacian on an n^dims grid with Dirichlet boundary, rows numbered
// x-fastest. Its columns come out sorted by construction: the neighbours are visited from the
// most negative offset (-n^2) to the most positive (+n^2).
CsrMatrix laplacian(int n, int dims) {
  const std::string what = "poisson" + std::to_string(dims) + "d(" + std::to_string(n) + ")";
  if (n < 1) throw InputError(what + ": the grid size must be at least 1");

  const std::int64_t rows = capped_power(n, dims);
  if (rows > int32_limit) {
    throw InputError(what + ": " + std::to_string(n) + "^" + std::to_string(dims) +
                     " rows is more than the int32 limit of " + std::to_string(int32_limit));
  }
  // Every point has 2*dims neighbours but those on a face lose one per face: per dimension
  // 2 * n^(dims-1) links are missing.
  const std::int64_t nnz = rows * (2 * dims + 1) - 2 * dims * (rows / n);
  if (nnz > int32_limit) {
    throw InputError(what + ": " + std::to_string(nnz) +
                     " nonzeros is more than the int32 limit of " + std::to_string(int32_limit) +
                     " (CSR indices are 32-bit)");
  }

  CsrMatrix a;
  a.rows = static_cast<std::int32_t>(rows);
  a.cols = a.rows;
  a.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  // Off-diagonals are all -1: fill once, then overwrite only the diagonal.
  a.values.assign(static_cast<std::size_t>(nnz), -1.0);

  const std::int32_t plane = dims == 3 ? n * n : 0;  // only used when dims == 3
  const int depth = dims == 3 ? n : 1;
  const double diagonal = 2.0 * dims;
  std::int32_t* col = a.col_idx.data();
  std::int32_t k = 0;
  std::int32_t row = 0;
  a.row_ptr[0] = 0;
  for (int z = 0; z < depth; ++z) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x, ++row) {
        if (z > 0) col[k++] = row - plane;
        if (y > 0) col[k++] = row - n;
        if (x > 0) col[k++] = row - 1;
        a.values[static_cast<std::size_t>(k)] = diagonal;
        col[k++] = row;
        if (x < n - 1) col[k++] = row + 1;
        if (y < n - 1) col[k++] = row + n;
        if (z < depth - 1) col[k++] = row + plane;
        a.row_ptr[static_cast<std::size_t>(row) + 1] = k;
      }
    }
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// CG checks

// Structural soundness, so that the symmetry check below may index freely.
void check_structure(const CsrMatrix& a, const std::string& what) {
  const auto rows = static_cast<std::size_t>(a.rows);
  if (a.row_ptr.size() != rows + 1 || a.row_ptr.front() != 0 || a.row_ptr.back() != a.nnz() ||
      a.values.size() != a.col_idx.size()) {
    throw InputError(what + ": malformed CSR arrays (row_ptr, col_idx and values disagree)");
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const auto first = static_cast<std::size_t>(a.row_ptr[r]);
    const auto last = static_cast<std::size_t>(a.row_ptr[r + 1]);
    if (last < first) {
      throw InputError(what + ": malformed CSR: row_ptr decreases at row " + std::to_string(r + 1));
    }
    for (std::size_t k = first; k < last; ++k) {
      const std::int32_t c = a.col_idx[k];
      if (c < 0 || c >= a.cols || (k > first && c <= a.col_idx[k - 1])) {
        throw InputError(what + ": malformed CSR: row " + std::to_string(r + 1) +
                         " has columns out of range, unsorted or repeated");
      }
      if (!std::isfinite(a.values[k])) {
        throw InputError(what + ": a(" + std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                         ") = " + format_value(a.values[k]) + " is not finite");
      }
    }
  }
}

// a(row, col), or 0 where the entry is not stored; columns are sorted, so a binary search.
double entry(const CsrMatrix& a, std::int32_t row, std::int32_t col, bool& stored) {
  const auto first = a.col_idx.begin() + a.row_ptr[static_cast<std::size_t>(row)];
  const auto last = a.col_idx.begin() + a.row_ptr[static_cast<std::size_t>(row) + 1];
  const auto it = std::lower_bound(first, last, col);
  stored = it != last && *it == col;
  return stored ? a.values[static_cast<std::size_t>(it - a.col_idx.begin())] : 0.0;
}

// Positive integer N of "kind:N", or an InputError naming the spec.
int parse_grid_size(const std::string& spec, std::string_view text) {
  int n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || n < 1) {
    throw InputError("problem '" + spec + "': N must be a positive integer, got '" +
                     std::string(text) + "'");
  }
  return n;
}

std::vector<double> row_sums(const CsrMatrix& a) {
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
  for (std::size_t r = 0; r < sums.size(); ++r) {
    double s = 0.0;
    for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      s += a.values[static_cast<std::size_t>(k)];
    }
    sums[r] = s;
  }
  return sums;
}

constexpr const char* valid_problem_forms = "poisson2d:N, poisson3d:N, mtx:PATH, npb:S|W|A|B|C";

}  // namespace

std::uint64_t host_bytes_needed(std::int64_t rows, std::int64_t nnz) {
  const auto n = static_cast<std::uint64_t>(rows);
  return static_cast<std::uint64_t>(nnz) * (4 + 8) + (n + 1) * 4 + 6 * n * 8;
}


CsrMatrix poisson2d(int n) { return laplacian(n, 2); }

CsrMatrix poisson3d(int n) { return laplacian(n, 3); }

void check_cg_matrix(const CsrMatrix& a, const std::string& what) {
  if (a.rows != a.cols) {
    throw InputError(what + " is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                     ": CG needs a square matrix");
  }
  if (a.rows == 0 || a.nnz() == 0) {
    throw InputError(what + " is empty (" + std::to_string(a.rows) + " x " +
                     std::to_string(a.cols) + ", " + std::to_string(a.nnz()) +
                     " nonzeros): CG needs a non-empty matrix");
  }
  check_structure(a, what);

  // Every stored off-diagonal entry against its mirror (a missing mirror counts as 0), in row
  // order, so the first offending entry reported is the first in the matrix.
  for (std::int32_t i = 0; i < a.rows; ++i) {
    const auto first = static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(i)]);
    const auto last = static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(i) + 1]);
    for (std::size_t k = first; k < last; ++k) {
      const std::int32_t j = a.col_idx[k];
      if (j == i) continue;
      const double aij = a.values[k];
      bool stored = false;
      const double aji = entry(a, j, i, stored);
      const double tolerance = 1e-12 * std::max(std::fabs(aij), std::fabs(aji)) + 1e-300;
      if (std::fabs(aij - aji) > tolerance) {
        throw InputError(what + " is not symmetric: a(" + std::to_string(i + 1) + ", " +
                         std::to_string(j + 1) + ") = " + format_value(aij) + " but a(" +
                         std::to_string(j + 1) + ", " + std::to_string(i + 1) +
                         ") = " + format_value(aji) + (stored ? "" : " (not stored)") +
                         ": CG needs a symmetric matrix");
      }
    }
  }
}

void check_run_fits_host(std::int64_t rows, std::int64_t nnz, const SharedHostCopies& shared,
                         const std::string& what) {
  const SharedHostCopy copy = shared ? shared(rows, nnz) : SharedHostCopy{};
  check_host_memory(host_bytes_needed(rows, nnz) + copy.bytes, what + copy.holder + ")");
}

Problem make_problem(const std::string& spec, const SharedHostCopies& shared) {
  const std::size_t colon = spec.find(':');
  const std::string kind = colon == std::string::npos ? spec : spec.substr(0, colon);
  const std::string_view argument =
      colon == std::string::npos ? std::string_view() : std::string_view(spec).substr(colon + 1);

  Problem p;
  p.name = spec;
  if (colon != std::string::npos && kind == "poisson2d") {
    p.a = poisson2d(parse_grid_size(spec, argument));
    p.b = row_sums(p.a);  // b = A * ones: the exact solution is all ones
    return p;
  }
  if (colon != std::string::npos && kind == "poisson3d") {
    p.a = poisson3d(parse_grid_size(spec, argument));
    p.b = row_sums(p.a);
    return p;
  }
  if (colon != std::string::npos && kind == "mtx") {
    const std::string path(argument);
    if (path.empty()) throw InputError("problem '" + spec + "': the path after 'mtx:' is empty");
    // A path the system cannot even look up (a name too long, a loop of links) is bad input,
    // not a filesystem exception; a missing file is left to the reader's own message.
    std::error_code ec;
    if (std::filesystem::status(path, ec).type() == std::filesystem::file_type::none)
      throw InputError("cannot read Matrix Market file '" + path + "': " + ec.message());
    p.a = read_matrix_market(path, shared);
    check_cg_matrix(p.a, "Matrix Market file '" + path + "'");
    p.b = row_sums(p.a);
    p.name = "mtx:" + std::filesystem::path(path).filename().string();
    return p;
  }
  if (colon != std::string::npos && kind == "npb") {
    const NpbClass* c = nullptr;
    try {
      c = &npb_class(std::string(argument));
    } catch (const InputError& e) {
      throw InputError("problem '" + spec + "': " + e.what());
    }
    // NAS's own bound on the nonzeros (its nz = na (nonzer + 1)^2), before makea allocates.
    const auto bound = static_cast<std::int64_t>(c->na) * (c->nonzer + 1) * (c->nonzer + 1);
    check_run_fits_host(c->na, bound, shared,
                        "problem " + spec + " (" + std::to_string(c->na) + " rows, up to " + std::to_string(bound) +
                            " nonzeros");
    p.a = npb_makea(*c);
    p.b.assign(static_cast<std::size_t>(p.a.rows), 1.0);  // NAS CG's first x
    return p;
  }
  throw InputError("unknown problem '" + spec + "': valid forms are " + valid_problem_forms);
}

}  // namespace gpubench::cg
