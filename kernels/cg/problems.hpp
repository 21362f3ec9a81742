// CG problem generators and readers. Every function throws gpubench::InputError with a message
// that names what is wrong (file, line, size) and what would be right.
#pragma once

#include <cstdint>
#include <string>

#include "common/host_memory.hpp"  // check_host_memory
#include "kernels/cg/csr.hpp"
#include "kernels/cg/matrix_market.hpp"  // mtx:PATH problems

namespace gpubench::cg {

// 5-point Laplacian on an n x n grid (Dirichlet boundary), rows = n*n, SPD.
CsrMatrix poisson2d(int n);
// 7-point Laplacian on an n x n x n grid, rows = n^3, SPD.
CsrMatrix poisson3d(int n);

// Checks that make a matrix usable for CG: square, non-empty, symmetric within rounding
// (|a_ij - a_ji| <= 1e-12 * max(|a_ij|, |a_ji|) + tiny). Throws InputError naming the first
// offending entry. `what` names the matrix in messages (a path, or "poisson2d:64").
void check_cg_matrix(const CsrMatrix& a, const std::string& what);

// Host bytes a CG run holds for a matrix of `rows` rows and `nnz` nonzeros: the CSR in double,
// b and the host reference's five vectors.
std::uint64_t host_bytes_needed(std::int64_t rows, std::int64_t nnz);


// check_host_memory for the host's copy plus `shared`'s, once the size is known and before
// anything of that size is allocated.
void check_run_fits_host(std::int64_t rows, std::int64_t nnz, const SharedHostCopies& shared,
                         const std::string& what);

// The problem named on the command line: "poisson2d:N", "poisson3d:N", "mtx:PATH" (b = A * ones,
// so the exact solution is all ones), "npb:S|W|A|B|C" (b = ones, as NAS CG's first x).
// `shared` counts the CPU devices' copies in the memory checks made before allocating.
Problem make_problem(const std::string& spec, const SharedHostCopies& shared = {});

}  // namespace gpubench::cg
