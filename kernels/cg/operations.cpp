#include "kernels/cg/operations.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "common/errors.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {
std::string gigabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", static_cast<double>(bytes) / 1e9);
  return text;
}

void check_device_can_run(const DeviceInfo& device, const CsrMatrix& a, Precision precision) {
  if (precision == Precision::f64 && !device.fp64)
    throw DeviceError("device " + device.label() + " has no fp64 support: use --precision f32");
  const std::uint64_t needed = device_bytes_needed(a, precision, max_cg_vectors);
  if (needed > device.global_mem_bytes)
    throw DeviceError("problem needs " + gigabytes(needed) + " of device memory (matrix and " +
                      std::to_string(max_cg_vectors) + " vectors in " + to_string(precision) + ") but device " +
                      device.label() + " has " + gigabytes(device.global_mem_bytes));
  const std::uint64_t real = bytes_of(precision);
  const auto nnz = static_cast<std::uint64_t>(a.nnz());
  const auto rows = static_cast<std::uint64_t>(a.rows);
  const auto length = static_cast<std::uint64_t>(std::max(a.rows, a.cols));  // a band's vectors hold its halo
  const std::pair<const char*, std::uint64_t> arrays[] = {{"matrix values", nnz * real},
                                                          {"column indices", nnz * 4},
                                                          {"row pointers", (rows + 1) * 4},
                                                          {"a vector", length * real}};
  for (const auto& [what, bytes] : arrays)
    if (bytes > device.max_alloc_bytes)
      throw DeviceError("the problem's " + std::string(what) + " need one buffer of " + gigabytes(bytes) +
                        " but device " + device.label() + " allows at most " + gigabytes(device.max_alloc_bytes) +
                        " per buffer");
}

}  // namespace

void check_can_make(const DeviceInfo& device, const CsrMatrix& a, Precision precision, const Params& launch) {
  grid::check(launch, "");
  check_device_can_run(device, a, precision);
  if (a.rows < 1) throw InputError("the CG matrix has no rows");
}

void Operations::start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count) {
  if (first != 0 || count != rows())
    throw Error(ExitCode::internal, "start_spmv_dot2_rows on part of the rows: this backend does not run bands");
  spmv(r, w);
  start_dot2(r, w);
}

int Operations::spmv_dot2_runs(const Params& launch) {
  const auto it = launch.find("row_runs");
  return it != launch.end() ? it->second : default_row_runs;
}

bool Operations::slab_spmv(const Params& launch) {
  const auto it = launch.find("slabs");
  return it == launch.end() || it->second != 0;
}

unsigned Operations::slab_lanes(const Params& launch) {
  const auto it = launch.find("slab_lanes");
  return it != launch.end() && it->second > 0 ? static_cast<unsigned>(it->second) : 0;
}

unsigned Operations::slab_cache_kib(const Params& launch) {
  const auto it = launch.find("slab_cache_kib");
  return it != launch.end() && it->second > 0 ? static_cast<unsigned>(it->second) : 0;
}

void Operations::spmv_dot2_advance(Slot r, Slot w, int rule) {
  const auto [a, b] = spmv_dot2(r, w);
  cg_advance(scalars_.data(), rule, a, b);
}

void Operations::gather_sums(Operations& from, int index) {
  if (index < 0) throw Error(ExitCode::internal, "gather_sums: slot " + std::to_string(index));
  if (gathered_.size() <= static_cast<std::size_t>(index)) gathered_.resize(static_cast<std::size_t>(index) + 1);
  gathered_[static_cast<std::size_t>(index)] = from.kept_sums();
}

void Operations::advance_gathered(int count, int rule) {
  if (count < 1 || static_cast<std::size_t>(count) > gathered_.size())
    throw Error(ExitCode::internal, "advance_gathered: " + std::to_string(count) + " slots, " +
                                        std::to_string(gathered_.size()) + " gathered");
  double a = 0, b = 0;
  for (int k = 0; k < count; ++k) {
    a += gathered_[static_cast<std::size_t>(k)][0];
    b += gathered_[static_cast<std::size_t>(k)][1];
  }
  cg_advance(scalars_.data(), rule, a, b);
}

void Operations::three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w) {
  three_term_update(scalars_[CG_A], scalars_[CG_B], x, x_prev, r, r_prev, w);
}

void Operations::cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x) {
  cg_update(scalars_[CG_A], scalars_[CG_B], r, w, p, s, x);
}

void check_slot(Slot v, std::size_t allocated) {
  if (v < 0 || static_cast<std::size_t>(v) >= allocated)
    throw Error(ExitCode::internal, "CG vector slot " + std::to_string(v) + " is not allocated (slots 0.." +
                                        std::to_string(static_cast<long>(allocated) - 1) + ")");
}

void check_vector_length(std::size_t length, int rows, const char* what) {
  if (length != static_cast<std::size_t>(rows))
    throw Error(ExitCode::internal, std::string(what) + " of " + std::to_string(length) +
                                        " values into a CG vector of " + std::to_string(rows));
}

void check_halo_length(std::size_t length, int rows, int cols) {
  if (length != static_cast<std::size_t>(cols - rows))
    throw Error(ExitCode::internal, "upload_halo of " + std::to_string(length) + " values into a halo of " +
                                        std::to_string(cols - rows));
}

void check_entries(std::span<const std::int32_t> entries, std::size_t values, int rows) {
  if (entries.size() != values)
    throw Error(ExitCode::internal, "download_entries of " + std::to_string(entries.size()) + " entries into " +
                                        std::to_string(values) + " values");
  for (const std::int32_t e : entries)
    if (e < 0 || e >= rows)
      throw Error(ExitCode::internal, "download_entries: entry " + std::to_string(e) + " is not one of the " +
                                          std::to_string(rows) + " own rows");
}

void check_row_range(std::int32_t first, std::int32_t count, int rows) {
  if (first < 0 || count < 0 || first > rows || count > rows - first)
    throw Error(ExitCode::internal, "spmv_rows of rows [" + std::to_string(first) + ", " +
                                        std::to_string(static_cast<std::int64_t>(first) + count) + ") of " +
                                        std::to_string(rows));
}

void Operations::spmv_rows(Slot, Slot, std::int32_t, std::int32_t) {
  throw Error(ExitCode::internal, "this backend's SpMV runs only whole (spmv_rows): it runs no band");
}

LibraryCalls* Operations::library() { return nullptr; }

std::unique_ptr<Solver> Operations::make_vendor_solver() { return library() ? make_library_cg() : nullptr; }

std::string Operations::links_to(Operations&) { return {}; }

void Operations::send_entries(Slot, std::span<const std::int32_t>, Operations&, std::int32_t) {
  throw Error(ExitCode::internal, "send_entries without a device-to-device link (links_to named none)");
}

std::uint64_t device_bytes_needed(std::int64_t rows, std::int64_t nnz, Precision p, int vectors, std::int64_t length) {
  const std::uint64_t real = bytes_of(p);
  const auto n = static_cast<std::uint64_t>(rows);
  const auto v = static_cast<std::uint64_t>(length < 0 ? rows : length);
  return (n + 1) * 4 + static_cast<std::uint64_t>(nnz) * (4 + real) + static_cast<std::uint64_t>(vectors) * v * real;
}

OperationsRegistry& operations_registry() {
  static OperationsRegistry registry;
  return registry;
}

void Operations::set_launch(const std::string& kernel, const Params& launch) {
  check_set_launch(kernel, launch, static_cast<std::size_t>(std::max(grid::group_size_of(launch), 1)), DeviceInfo{});
}

void check_launch(const std::string& kernel, const Params& launch, const std::string& label) {
  // The kernel's tunables beyond the grid's two (row_runs, slabs) take their declared values.
  const TunableSpace space = kernel_tunables(kernel, std::size_t{1} << 30);
  std::vector<std::string> own;
  for (const Tunable& t : space.params)
    if (t.name != "work_group_size" && t.name != "work_groups_per_cu") own.push_back(t.name);
  Params rest;
  for (const auto& [name, value] : launch) {
    if (std::find(own.begin(), own.end(), name) == own.end()) {
      rest[name] = value;
      continue;
    }
    const Tunable* t = space.find(name);
    if (!t->allows(value))
      throw UsageError(name + " " + std::to_string(value) + " of kernel " + label + " is not one of its values, " +
                       t->legal);
  }
  grid::check(rest, label, own);
}

void check_set_launch(const std::string& kernel, const Params& launch, std::size_t largest,
                      const DeviceInfo& device) {
  const auto& names = tunable_kernels();
  if (std::find(names.begin(), names.end(), kernel) == names.end())
    throw Error(ExitCode::internal, "set_launch: '" + kernel + "' is not a tunable CG kernel");
  check_launch(kernel, launch, kernel);
  const int size = grid::group_size_of(launch);
  if (static_cast<std::size_t>(size) > largest)
    throw DeviceError("kernel " + kernel + ": work-group size " + std::to_string(size) +
                      " exceeds the largest " + device.label() + " launches it with (" + std::to_string(largest) +
                      ")");
}

}  // namespace gpubench::cg
