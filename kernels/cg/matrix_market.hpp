// The Matrix Market reader. Throws gpubench::InputError with a message that names the file, the
// line and what would be right.
#pragma once

#include <string>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

// Matrix Market coordinate file: real, integer or pattern; general or symmetric (symmetric is
// expanded to both triangles). Duplicates are summed, columns sorted within each row.
// Rejects: missing file, malformed header or entry (message carries the line number), array
// format, complex/hermitian/skew-symmetric, out-of-range indices, wrong entry count.
CsrMatrix read_matrix_market(const std::string& path);

}  // namespace gpubench::cg
