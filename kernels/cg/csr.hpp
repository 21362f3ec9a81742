// A CG problem as every backend receives it: a square sparse matrix in CSR form (values in
// double; backends convert to their precision when they upload) and a right-hand side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gpubench::cg {

// CSR indices are 32-bit: the most rows, columns or nonzeros a matrix may have.
inline constexpr std::int64_t int32_limit = std::numeric_limits<std::int32_t>::max();

struct CsrMatrix {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::vector<std::int32_t> row_ptr;  // rows + 1 entries, row_ptr[0] == 0
  std::vector<std::int32_t> col_idx;  // sorted ascending within each row, no duplicates
  std::vector<double> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
};

// Threads (work-items) per row in a CSR SpMV, by the average row length: 1 (one per row) for short
// rows (Poisson: 5 or 7), 4 to 32 for longer ones (NAS CG: ~240), so that the loads of a row are
// coalesced and rows of different length do not leave threads idle. Every backend with its own
// SpMV uses this rule; `group` (the work-group size) must hold whole rows. per_row: the average
// nonzeros per row.
inline unsigned spmv_lanes(double per_row, std::size_t group) {
  unsigned lanes = per_row >= 64 ? 32 : per_row >= 32 ? 16 : per_row >= 16 ? 8 : per_row >= 12 ? 4 : 1;
  while (lanes > 1 && group % lanes != 0) lanes /= 2;
  return lanes;
}
inline unsigned spmv_lanes(const CsrMatrix& a, std::size_t group) {
  return spmv_lanes(a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0, group);
}

// A problem: the matrix, the right-hand side, and a name for records ("poisson2d:4096").
struct Problem {
  std::string name;
  CsrMatrix a;
  std::vector<double> b;
};

}  // namespace gpubench::cg
