// A CG problem as every backend receives it: a square sparse matrix in CSR form (values in
// double; backends convert to their precision when they upload) and a right-hand side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::cg {

struct CsrMatrix {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::vector<std::int32_t> row_ptr;  // rows + 1 entries, row_ptr[0] == 0
  std::vector<std::int32_t> col_idx;  // sorted ascending within each row, no duplicates
  std::vector<double> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
};

// A problem: the matrix, the right-hand side, and a name for records ("poisson2d:4096").
struct Problem {
  std::string name;
  CsrMatrix a;
  std::vector<double> b;
};

}  // namespace gpubench::cg
