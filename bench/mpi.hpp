// Runs under mpirun: `mpirun -np N gpubench --suite cg ...` makes N ranks that solve one problem
// together, one band of the matrix each (kernels/cg/distributed.hpp). Rank 0 prints and writes the
// records; the other ranks print nothing unless rank 0 cannot say their failure for them.
#pragma once

#include <memory>

#include "common/comm.hpp"

namespace gpubench {

// Whether this process was started by an MPI launcher (its environment says so).
bool launched_by_mpi();

// The world of ranks when launched by an MPI launcher (MPI initialised here, finalised when the
// last reference goes, after every rank got there); null otherwise. UsageError when launched by
// one but this gpubench was built without MPI.
std::shared_ptr<Comm> start_mpi(int* argc, char*** argv);

// Whether this build has MPI.
bool built_with_mpi();

}  // namespace gpubench
