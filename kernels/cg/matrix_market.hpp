// The Matrix Market reader. Throws gpubench::InputError with a message that names the file, the
// line and what would be right.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

// What a run keeps in host memory beside the host's own copy of a matrix of `rows` rows and
// `nnz` nonzeros: the copy that a CPU device (OpenMP, PoCL) holds there, and words naming it
// for the message (", counting the f64 copy that openmp:0 keeps there").
struct SharedHostCopy {
  std::uint64_t bytes = 0;
  std::string holder;
};
using SharedHostCopies = std::function<SharedHostCopy(std::int64_t rows, std::int64_t nnz)>;

// Matrix Market coordinate file: real, integer or pattern; general or symmetric (symmetric is
// expanded to both triangles). Duplicates are summed, columns sorted within each row.
// Rejects: missing file, malformed header or entry (message carries the line number), array
// format, complex/hermitian/skew-symmetric, out-of-range indices, wrong entry count.
// The header's size is checked against the host's available memory before anything is
// allocated, counting `shared` (the CPU devices' copies; problems.hpp) when given.
CsrMatrix read_matrix_market(const std::string& path, const SharedHostCopies& shared = {});

// One real value of a Matrix Market file (a leading '+' taken): the number, or nullopt with `why`
// saying what the text is instead, quoted ("'nan' is not finite", "'1e400' is out of the range
// of double", "'abc' is not a number").
std::optional<double> parse_real(std::string_view text, std::string& why);

}  // namespace gpubench::cg
