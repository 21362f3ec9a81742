// The NAS Parallel Benchmarks CG problem: its classes, its matrix generator (makea, with NPB's
// randlc generator) and its official verification values.
#pragma once

#include <string>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

struct NpbClass {
  char name;           // 'S', 'W', 'A', 'B', 'C'
  int na;              // rows
  int nonzer;          // nonzeros per generated sparse vector
  int niter;           // outer (power-iteration) steps
  double shift;        // eigenvalue shift
  double zeta_verify;  // official zeta
};

inline constexpr int npb_cg_iterations = 25;  // inner CG iterations per outer step
inline constexpr double npb_rcond = 0.1;
inline constexpr double npb_verify_epsilon = 1e-10;

// Throws InputError listing the valid classes for anything but S, W, A, B, C.
const NpbClass& npb_class(const std::string& name);

// The matrix NAS CG's makea() builds for the class (0-based CSR, columns sorted).
CsrMatrix npb_makea(const NpbClass& c);

// NAS CG's operation count for the whole timed benchmark (its Mop/s numerator, in operations).
double npb_operations(const NpbClass& c);

}  // namespace gpubench::cg
