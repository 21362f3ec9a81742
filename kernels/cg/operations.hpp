// The CG suite's operations interface. The algorithm (solver.hpp) is written once against it;
// each API supplies one implementation (openmp.cpp, opencl.cpp, ...). Vectors live on the
// device in numbered slots; scalars cross the interface in double and are converted to the
// implementation's precision inside. Every kernel's work (FLOPs, bytes) is declared in work.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/registry.hpp"
#include "bench/kernel_profile.hpp"
#include "kernels/launch_grid.hpp"
#include "common/precision.hpp"
#include "kernels/cg/csr.hpp"

namespace gpubench::cg {

// The fused forms' scalar recurrences, for the host (the devices include the same file).
#define CG_REAL double
#define CG_FN inline
#define CG_G
#include "kernels/cg/recurrence.h"
#undef CG_REAL
#undef CG_FN
#undef CG_G

using Slot = int;
class Solver;

// A backend's library calls on an Operations' vectors: what the vendor variant is built from
// (textbook CG from library calls alone, make_library_cg in solver.hpp), each timed and profiled
// like the kernels under the name of the kernel whose work it does.
class LibraryCalls {
 public:
  virtual ~LibraryCalls() = default;
  // Readies SpMV from `in` to `out` (cuSPARSE sizes and allocates its work buffer): once, outside
  // any timed region.
  virtual void prepare_spmv(Slot in, Slot out) = 0;
  virtual void spmv(Slot in, Slot out) = 0;            // out = A in
  virtual double dot(Slot a, Slot b) = 0;              // sum a_i b_i, waited for
  virtual void axpy(double alpha, Slot x, Slot y) = 0; // y = y + alpha x
  virtual void scal(double alpha, Slot x) = 0;         // x = alpha x
};
// Launch parameters of one CG kernel are a Params (the tuner's generic map; its names and
// defaults: kernels/launch_grid.hpp); work.hpp declares which kernels take which.

class Operations {
 public:
  virtual ~Operations() = default;

  // Vectors: slots 0..count-1, each with rows() entries, zero-filled. Replaces earlier vectors.
  virtual void allocate_vectors(int count) = 0;
  virtual void upload(Slot v, std::span<const double> values) = 0;
  virtual void download(Slot v, std::span<double> values) = 0;  // blocks until done
  virtual void fill_zero(Slot v) = 0;
  virtual void copy(Slot src, Slot dst) = 0;  // dst = src

  // Kernels. Slots passed to one call are distinct unless said otherwise.
  virtual void spmv(Slot in, Slot out) = 0;                  // out = A in
  // out = A in on rows [first, first + count) only, the other entries of out untouched: a band's
  // SpMV in parts, its rows that read no halo entry while the halo moves (distributed.hpp). The
  // backends that run bands (BackendTraits::bands) have it; the default refuses (Error, internal).
  virtual void spmv_rows(Slot in, Slot out, std::int32_t first, std::int32_t count);
  virtual double dot(Slot a, Slot b) = 0;                    // sum a_i b_i (a may equal b)
  virtual void axpy(double alpha, Slot x, Slot y) = 0;       // y = y + alpha x
  virtual void xpay(Slot x, double beta, Slot y) = 0;        // y = x + beta y
  virtual void scale(double alpha, Slot x, Slot y) = 0;      // y = alpha x
  virtual std::array<double, 2> dot2(Slot r, Slot w) = 0;   // {r.r, w.r} in one kernel
  // The reductions in two steps, so that one thread driving several devices (distributed.hpp)
  // starts every device's before it waits for any: start_dot / start_dot2 issue the kernel and
  // the read-back of its partials; finish_reduction() waits and returns the sums ({a.b, 0} after
  // start_dot). Every start adds to the reduction begun since the last finish_reduction(), which
  // ends it. By default the start computes at once.
  virtual void start_dot(Slot a, Slot b) { add_to_reduction({dot(a, b), 0.0}); }
  virtual void start_dot2(Slot r, Slot w) { add_to_reduction(dot2(r, w)); }
  virtual std::array<double, 2> finish_reduction() { return std::exchange(started_, {0.0, 0.0}); }
  // Starts moving the reduction begun toward the host without waiting (CUDA: the partials'
  // read-back), so that several bands' move side by side before the first finish_reduction()
  // waits; finish_reduction() does it where it was not done. By default nothing to start.
  virtual void ready_reduction() {}
  // The fused forms' SpMV: w = A r and dot2's reduction {r.r, w.r} from the same pass over A and r
  // (the vectors are not read again for the dots). spmv_dot2 returns the sums. start_spmv_dot2_rows
  // computes rows [first, first + count) only and adds their share to the reduction begun (a band's
  // SpMV in parts around its halo, distributed.hpp; finish_reduction() returns the sums). By
  // default SpMV, then dot2 (whole rows only: the backends that run bands fuse them).
  virtual std::array<double, 2> spmv_dot2(Slot r, Slot w) {
    start_spmv_dot2_rows(r, w, 0, rows());
    return finish_reduction();
  }
  virtual void start_spmv_dot2_rows(Slot r, Slot w, std::int32_t first, std::int32_t count);
  // The most starts one reduction takes: a band's SpMV in three parts (the rows that read no
  // halo, those before and those after them). Backends size their partials' buffers for it.
  static constexpr std::size_t max_reduction_parts = 3;
  // The runs of rows each work-group of a backend's fused SpMV takes (a kernel argument, the
  // tunable "row_runs" of spmv_dot2, work.hpp): fewer groups' partials to sum and group reductions
  // per row, the matrix still swept in order.
  static int spmv_dot2_runs(const Params& launch);
  // Whether an SpMV launch may run as the slab SpMV (the tunable "slabs", work.hpp).
  static bool slab_spmv(const Params& launch);
  // The slab SpMV's work-items per row an SpMV launch asks for (the tunable "slab_lanes"; 0: the
  // plan's, cg::lanes_of in slabs.hpp).
  static unsigned slab_lanes(const Params& launch);
  // The slab SpMV's slab width in KiB of x gathered through the cache an SpMV launch asks for (the
  // tunable "slab_cache_kib"; 0: slices staged in local memory).
  static unsigned slab_cache_kib(const Params& launch);
  // The fused forms' scalars (kernels/cg/recurrence.h): a state that the fused SpMV's sums
  // advance and whose coefficients the updates read. By default it lives on the host and each
  // advance waits for its sums, as the reductions above do. CUDA and OpenCL keep it in device
  // memory (device_scalars()): an iteration then issues its kernels without waiting for the
  // device, and the host reads the state (get_scalars) only when the algorithm asks.
  using Scalars = std::array<double, CG_SCALARS>;
  virtual bool device_scalars() const { return false; }
  virtual void set_scalars(const Scalars& s) { scalars_ = s; }
  virtual Scalars get_scalars() { return scalars_; }  // waits for the work issued so far
  // w = A r and {r.r, w.r} from the same pass (spmv_dot2, whole rows), and the state advanced by
  // `rule` (a CG_RULE_*) with those sums.
  virtual void spmv_dot2_advance(Slot r, Slot w, int rule);
  // three_term_update and cg_update with the state's coefficients (CG_A, CG_B).
  virtual void three_term_update_scalars(Slot x, Slot x_prev, Slot r, Slot r_prev, Slot w);
  virtual void cg_update_scalars(Slot r, Slot w, Slot p, Slot s, Slot x);

  // A solve across devices (distributed.hpp) with the scalars on the devices: each band's fused
  // SpMV sums end on its device and meet the other bands' there, so that every band advances the
  // same state and no iteration waits for the host. finish_reduction_here() ends the reduction
  // begun (the starts since the last finish) with its sums kept where the band keeps its scalars;
  // kept_sums() reads them (waits). gather_sums(from, index) makes band `from`'s kept sums this
  // band's slot `index`, ordered after `from`'s finish (CUDA: read in place over the peer link, or
  // copied where there is none; across APIs through the host); advance_gathered(count, rule) advances this band's
  // scalars by `rule` with the sums of slots 0 .. count-1 added in slot order. By default all four
  // are the host's.
  virtual void finish_reduction_here() { kept_ = finish_reduction(); }
  virtual std::array<double, 2> kept_sums() { return kept_; }
  virtual void gather_sums(Operations& from, int index);
  virtual void advance_gathered(int count, int rule);

  // Saad's three-term CG update, one kernel:
  //   x_prev = rho (x + gamma r) + (1 - rho) x_prev
  //   r_prev = rho (r - gamma w) + (1 - rho) r_prev
  virtual void three_term_update(double rho, double gamma, Slot x, Slot x_prev, Slot r,
                                 Slot r_prev, Slot w) = 0;
  // Chronopoulos-Gear CG update, one kernel:
  //   p = r + beta p;  s = w + beta s;  x = x + alpha p;  r = r - alpha s
  virtual void cg_update(double alpha, double beta, Slot r, Slot w, Slot p, Slot s, Slot x) = 0;

  // Device-event timing. start_timer(): the next kernel launched opens the interval.
  // stop_timer(): waits for the device, returns seconds from the start of the first kernel
  // launched since start_timer() to the end of the last one (host gaps between them included).
  virtual void start_timer() = 0;
  virtual double stop_timer() = 0;
  // While on, every launch keeps its event; take_profile() sums them per kernel and clears.
  virtual void set_profiling(bool on) = 0;
  // Waits until everything issued so far has finished on the device.
  virtual void finish() = 0;
  // Where the API has a current device per thread (CUDA), makes this one's current: a thread that
  // drives several devices (distributed.hpp) calls it before each one's calls.
  virtual void make_current() {}
  virtual std::vector<KernelProfile> take_profile() = 0;

  virtual int rows() const = 0;

  // Several devices (distributed.hpp): a band of a partitioned matrix has more columns than rows
  // (its halo, partition.hpp), and its vectors hold cols() entries: its own rows(), then the halo
  // that the SpMV reads. Kernels other than spmv work on the first rows() entries only; upload and
  // download move those. upload_halo writes the halo entries (cols() - rows() values);
  // download_entries reads own entries by index (rows < rows()), blocking until done.
  virtual int cols() const = 0;
  virtual void upload_halo(Slot v, std::span<const double> values) = 0;
  virtual void download_entries(Slot v, std::span<const std::int32_t> rows, std::span<double> values) = 0;
  // Device to device, for bands in one process: links_to(to) says how send_entries copies this
  // one's entries into `to`'s halo directly (and readies that path: CUDA enables peer access), or
  // says nothing where it cannot (the default: the exchange then goes through the host).
  // send_entries copies own entries `rows` (ascending) of v to `to`'s halo of v from halo entry
  // `offset`, after the work issued on both so far; the host waits for nothing. The copy may run
  // beside the work issued next on either (the SpMV of rows that read no halo): await_sends() on
  // each orders its work issued after it behind every copy sent to or from it since the last call.
  // Both must be called before the halo or the sent entries are touched again.
  virtual std::string links_to(Operations& to);
  virtual void send_entries(Slot v, std::span<const std::int32_t> rows, Operations& to, std::int32_t offset);
  virtual void await_sends() {}

  // Launch parameters per kernel: the factory's (empty: the defaults) apply to every kernel until this
  // replaces it for `kernel` (a name from tunable_kernels()). Throws DeviceError when the device
  // cannot launch `kernel` with it (the sweeper records that and goes on). Backends that pick
  // their own launch sizes (openmp, ViennaCL) keep the default, which only checks the values.
  virtual void set_launch(const std::string& kernel, const Params& launch);

  // Where this backend's kernels take a slower path than another API's on the same device, and
  // what forces it (bench/suite.hpp's gap_cause): the records' gap_causes. Empty by default.
  const nlohmann::json& gap_causes() const { return gap_causes_; }

  // The backend's library calls on these vectors, or nullptr where it has none (the default).
  virtual LibraryCalls* library();
  // The backend's library CG ("vendor" variant) working on these vectors, or nullptr when the
  // backend has none. Its solution and b use the same slots as the other solvers. By default,
  // textbook CG from library() (make_library_cg), where there is one.
  virtual std::unique_ptr<Solver> make_vendor_solver();

 protected:
  // The default starts' sums, and a backend's that computes its reductions at once (OpenMP).
  void add_to_reduction(const std::array<double, 2>& sums) {
    started_[0] += sums[0];
    started_[1] += sums[1];
  }
  nlohmann::json gap_causes_ = nlohmann::json::array();

 private:
  std::array<double, 2> started_{0, 0};
  Scalars scalars_{};
  std::array<double, 2> kept_{0, 0};       // finish_reduction_here's, by default
  std::vector<std::array<double, 2>> gathered_;  // gather_sums', by default
};

// Bytes a backend needs on the device for this problem: the CSR arrays and `vectors` vectors of
// `length` entries (rows; a band's vectors hold its halo too, a.cols).
std::uint64_t device_bytes_needed(std::int64_t rows, std::int64_t nnz, Precision p, int vectors, std::int64_t length = -1);
inline std::uint64_t device_bytes_needed(const CsrMatrix& a, Precision p, int vectors) {
  return device_bytes_needed(a.rows, a.nnz(), p, vectors, std::max(a.rows, a.cols));
}
// The vectors the widest CG variant needs, plus one for NAS CG's residual: what a factory plans for.
inline constexpr int max_cg_vectors = 8;

// Refuse, before anything is allocated, what `device` (as described) cannot run: launch
// parameters below 1 (UsageError, even where a backend picks its own work sizes); f64 without
// fp64, too little global memory for the matrix and max_cg_vectors vectors, an array larger
// than one buffer may be (DeviceError); a matrix without rows (InputError). Every factory calls
// it first, so every backend refuses the same cases with the same messages.
void check_can_make(const DeviceInfo& device, const CsrMatrix& a, Precision precision, const Params& launch);

// The checks every backend's Operations makes on its callers (Error, ExitCode::internal: these
// are bugs in the algorithm code, not user input): `v` is one of the `allocated` vector slots;
// `length` values moved by `what` (upload, download) fit a vector of `rows`.
void check_slot(Slot v, std::size_t allocated);
void check_vector_length(std::size_t length, int rows, const char* what);
// upload_halo's values fill the halo (cols - rows); download_entries' entries are own rows, one per value.
void check_halo_length(std::size_t length, int rows, int cols);
void check_entries(std::span<const std::int32_t> entries, std::size_t values, int rows);
// spmv_rows' rows [first, first + count) lie within the `rows` own rows.
void check_row_range(std::int32_t first, std::int32_t count, int rows);
// grid::check for `kernel` (a tunable one): the grid's two parameters and the kernel's own
// (kernel_tunables), each at least 1; a UsageError naming `label` otherwise.
void check_launch(const std::string& kernel, const Params& launch, const std::string& label);
// What every set_launch checks first: `kernel` is tunable (else Error, internal), the values are
// at least 1 (UsageError), and the work-group size is at most `largest` (DeviceError naming the
// kernel, the size and the device).
void check_set_launch(const std::string& kernel, const Params& launch, std::size_t largest,
                      const DeviceInfo& device);

// One launch per tunable kernel (tunable_kernels() names them), each API's own Launch type;
// launches["axpy"] finds one by name, for set_launch.
template <typename Launch>
struct KernelLaunches {
  Launch spmv, spmv_dot2, dot, dot2, axpy, xpay, scale, three_term_update, cg_update;

  Launch& operator[](const std::string& kernel) {
    if (kernel == "spmv") return spmv;
    if (kernel == "spmv_dot2") return spmv_dot2;
    if (kernel == "dot") return dot;
    if (kernel == "dot2") return dot2;
    if (kernel == "axpy") return axpy;
    if (kernel == "xpay") return xpay;
    if (kernel == "scale") return scale;
    if (kernel == "three_term_update") return three_term_update;
    return cg_update;  // check_set_launch has refused every other name
  }
};

// Each API registers how to make its Operations for a device (GPUBENCH_REGISTER_CG_OPERATIONS in
// its kernels/cg/<api>.cpp). The factory uploads the matrix; it throws DeviceError when the
// device cannot run the point (no fp64, too little memory, build failure ...).
using OperationsFactory = std::function<std::unique_ptr<Operations>(
    const DeviceInfo& device, const CsrMatrix& a, Precision precision, const Params& launch)>;

// What a backend records beside its factory. `vendor`: what its vendor variant is built from
// ("cuSPARSE SpMV + cuBLAS"), empty when it has none. `launch_parameters`: whether its kernels
// honour launch parameters (and are swept). `bands`: whether it runs a band of a matrix split across
// devices (distributed.hpp: a halo after its rows).
struct BackendTraits {
  std::string vendor;
  bool launch_parameters = false;
  bool bands = true;
  // Whether its SpMVs have the forms the tunables row_runs and slabs choose between (false: one
  // SpMV, and those two are not swept there).
  bool spmv_forms = true;
};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();

// nullptr when `backend` has no CG implementation in this build.
inline const OperationsFactory* find_operations(const std::string& backend) {
  return operations_registry().factory(backend);
}
// Empty when `backend` has no vendor CG.
inline std::string vendor_library(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return traits ? traits->vendor : std::string();
}
inline bool takes_launch_parameters(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return traits && traits->launch_parameters;
}
inline bool has_spmv_forms(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return !traits || traits->spmv_forms;
}
inline bool runs_bands(const std::string& backend) {
  const BackendTraits* traits = operations_registry().extra(backend);
  return traits && traits->bands;
}

}  // namespace gpubench::cg

// GPUBENCH_REGISTER_CG_OPERATIONS("cuda", make_cuda_operations [, "cuSPARSE SpMV + cuBLAS" [, true]])
#define GPUBENCH_REGISTER_CG_OPERATIONS(...)                                                     \
  static const ::gpubench::cg::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_cg_ops_, __LINE__){ \
      ::gpubench::cg::operations_registry(), __VA_ARGS__}
