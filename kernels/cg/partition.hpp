// CG across several devices (issue 18), its first part: how a matrix is split. Rows go to
// contiguous bands balanced by nonzeros; each band keeps its rows of A with the columns renumbered
// so that its own rows come first ([0, rows)) and the columns it needs from other bands follow
// ([rows, rows + halo), grouped by the band that owns them, ascending). Per iteration a band
// receives only those halo entries of the SpMV's input, never the whole vector: the plan says
// which of its own entries each other band needs (sends) and where the entries it receives land
// (receives). Computed once from the sparsity pattern.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

// What one band sends to, or receives from, one other band.
struct HaloLink {
  int band = 0;                       // the other band
  std::vector<std::int32_t> entries;  // send: own local rows it needs; receive: global columns, ascending
  std::int32_t offset = 0;            // where they land in the receiving band's halo (from 0)
};

struct Band {
  std::int32_t first_row = 0;         // global index of its first row
  CsrMatrix a;                        // its rows; a.cols = rows + halo (local column numbering)
  std::vector<std::int32_t> halo;     // global column of each halo entry (a.cols - a.rows of them)
  std::vector<HaloLink> sends;        // ascending by band
  std::vector<HaloLink> receives;     // ascending by band, offsets ascending
  // The longest run of rows that read no halo entry (the first such run where several are
  // longest; empty when every row reads one): their SpMV needs only own entries, so it can run
  // while the halo moves (Poisson: all but a grid line at each neighbour's edge).
  std::int32_t interior_first = 0;
  std::int32_t interior_rows = 0;

  std::int32_t rows() const { return a.rows; }
  std::int32_t halo_size() const { return static_cast<std::int32_t>(halo.size()); }
};

struct Partition {
  std::int32_t rows = 0;              // of the whole matrix
  std::vector<Band> bands;
  // Entries that cross between bands per SpMV: the sum of the halos (what the exchange moves).
  std::int64_t halo_entries() const;
};

// Splits `a` (square) into `parts` contiguous row bands with as equal nonzero counts as row
// boundaries allow (every band at least one row). InputError when `parts` is below 1 or above the
// rows.
Partition partition_rows(const CsrMatrix& a, int parts);

// The global vector's entries of `band` (its own rows) from a whole vector, and back.
std::span<const double> band_slice(const Partition& p, int band, std::span<const double> whole);

// The halo of `band` filled from the whole vector `x` (the entries its receives name, in halo
// order): what the exchange delivers, computed on the host (for tests and references).
std::vector<double> gather_halo(const Partition& p, int band, std::span<const double> x);

}  // namespace gpubench::cg
